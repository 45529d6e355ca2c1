#pragma once
/// MSA column-wise gated self-attention (AF2 supplement, Alg. 8), registered as
/// "msa_column_attention".

#include <cstdint>

#include "attend/bio/evoformer/attention_options.hpp"
#include "attend/bio/evoformer/gated_attention.hpp"
#include "attend/core/module.hpp"
#include "attend/core/option_list.hpp"

namespace attend {
class Registry;
}

namespace attend::bio {

/// The JSON config, same keys: c_hidden, n_heads (8), chunk_size and seed as every Evoformer
/// attention (the base class), and the width below.
struct MsaColumnAttentionOptions : EvoformerAttentionOptions<8> {
  int64_t c_m = 0;  ///< MSA channels (required)

  /// The options declared once: keys, ranges, defaults and meanings (`attend layers --options msa_column_attention`).
  static const OptionList<MsaColumnAttentionOptions>& option_list();
  static MsaColumnAttentionOptions from_json(const Json& config) { return option_list().from_json(config); }
  Json to_json() const { return option_list().to_json(*this); }
};

/// Parameters: layer_norm_m (c_m), mha (GatedAttention over c_m).
class MsaColumnAttention : public Module {
 public:
  explicit MsaColumnAttention(MsaColumnAttentionOptions options);
  std::string type_name() const override { return "msa_column_attention"; }
  Json config() const override { return options_.to_json(); }

  /// m [n_seq, n_res, c_m] -> the MSA update [n_seq, n_res, c_m]: row attention on the
  /// transposed MSA (dense attention batch = n_res, keys = sequences), transposed back. The
  /// two transposes are ops::permute copies of the MSA.
  Var forward(const Var& m) const;

  static void register_into(Registry& registry);

 private:
  MsaColumnAttentionOptions options_;
  const Module* layer_norm_m_;
  const GatedAttention* mha_;
};

}  // namespace attend::bio
