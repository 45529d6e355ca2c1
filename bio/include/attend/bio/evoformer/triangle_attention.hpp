#pragma once
/// Triangular gated self-attention around the starting node (AF2 supplement, Alg. 13) and
/// the ending node (Alg. 14), registered as "triangle_attention_starting_node" and
/// "triangle_attention_ending_node".

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

/// The JSON config, same keys (the node is the registry name): c_hidden, n_heads (4),
/// chunk_size and seed as every Evoformer attention (the base class), and the width below.
struct TriangleAttentionOptions : EvoformerAttentionOptions<4> {
  int64_t c_z = 0;  ///< pair channels (required)

  /// The options declared once: keys, ranges, defaults and meanings (`attend layers --options
  /// triangle_attention_starting_node`); the two registered names differ only in the name errors give.
  static const OptionList<TriangleAttentionOptions>& option_list(bool starting_node);
  static TriangleAttentionOptions from_json(const Json& config, bool starting_node) { return option_list(starting_node).from_json(config); }
  Json to_json() const { return option_list(true).to_json(*this); }
};

/// Parameters: layer_norm (c_z), linear_b [c_z, n_heads] (no bias, AF2 default init),
/// mha (GatedAttention over c_z).
class TriangleAttention : public Module {
 public:
  /// `starting` selects Alg. 13 (true) or Alg. 14 (false).
  TriangleAttention(TriangleAttentionOptions options, bool starting);
  std::string type_name() const override;
  Json config() const override { return options_.to_json(); }

  /// z [n_res, n_res, c_z] -> the pair update [n_res, n_res, c_z]. Starting node: for each
  /// row i, query j attends over keys k with the bias b_jk from linear_b(layer_norm(z))
  /// (dense attention batch = n_res rows, bias [1, n_heads, n_res, n_res]). Ending node: the
  /// same on the transposed z, transposed back (two ops::permute copies of z). With
  /// `weights_out`, the attention probabilities [n_res, n_heads, n_res, n_res] are written
  /// there (no gradient): entry (s, h, q, k) is how much pair (s, q) attends to pair (s, k)
  /// (starting node), or pair (q, s) to pair (k, s) (ending node).
  Var forward(const Var& z, Tensor* weights_out = nullptr) const;

  /// Register both nodes.
  static void register_into(Registry& registry);

 private:
  TriangleAttentionOptions options_;
  bool starting_;
  const Module* layer_norm_;
  const Linear* linear_b_;
  const GatedAttention* mha_;
};

}  // namespace attend::bio
