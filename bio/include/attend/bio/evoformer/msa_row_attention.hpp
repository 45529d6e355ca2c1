#pragma once
/// MSA row-wise gated self-attention with pair bias (AF2 supplement, Alg. 7), registered as
/// "msa_row_attention".

#include <cstdint>

#include "attend/bio/evoformer/attention_options.hpp"
#include "attend/bio/evoformer/gated_attention.hpp"
#include "attend/core/layers/linear.hpp"
#include "attend/core/module.hpp"
#include "attend/core/option_list.hpp"

namespace attend {
class Registry;
}

namespace attend::bio {

/// The JSON config, same keys: c_hidden, n_heads (8), chunk_size and seed as every Evoformer
/// attention (the base class), and the widths below.
struct MsaRowAttentionOptions : EvoformerAttentionOptions<8> {
  int64_t c_m = 0;  ///< MSA channels (required)
  int64_t c_z = 0;  ///< pair channels (required)

  /// The options declared once: keys, ranges, defaults and meanings (`attend layers --options msa_row_attention`).
  static const OptionList<MsaRowAttentionOptions>& option_list();
  static MsaRowAttentionOptions from_json(const Json& config) { return option_list().from_json(config); }
  Json to_json() const { return option_list().to_json(*this); }
};

/// Parameters: layer_norm_m (c_m), layer_norm_z (c_z), linear_z [c_z, n_heads] (no bias, AF2
/// default init), mha (GatedAttention over c_m).
class MsaRowAttention : public Module {
 public:
  explicit MsaRowAttention(MsaRowAttentionOptions options);
  std::string type_name() const override { return "msa_row_attention"; }
  Json config() const override { return options_.to_json(); }

  /// m [n_seq, n_res, c_m], z [n_res, n_res, c_z] -> the MSA update [n_seq, n_res, c_m]:
  /// attention along each MSA row (dense attention batch = n_seq, keys = residues) with the
  /// pair bias linear(layer_norm(z)) as [1, n_heads, n_res, n_res]. With `weights_out`, each
  /// row's attention probabilities [n_seq, n_heads, n_res, n_res] are also written there (the
  /// per-head maps that `attend explain contacts` reads; no gradient).
  Var forward(const Var& m, const Var& z, Tensor* weights_out = nullptr) const;

  static void register_into(Registry& registry);

 private:
  MsaRowAttentionOptions options_;
  const Module* layer_norm_m_;
  const Module* layer_norm_z_;
  const Linear* linear_z_;
  const GatedAttention* mha_;
};

}  // namespace attend::bio
