#pragma once
/// GatConv: graph attention layer (Velickovic et al., "Graph Attention Networks", ICLR 2018),
/// registered as "gat". Options follow PyTorch Geometric's GATConv.

#include <cstdint>

#include "attend/core/option_list.hpp"
#include "attend/graph/layers/attention_layer.hpp"
#include "attend/graph/node_layer.hpp"

namespace attend {
class Registry;
}

namespace attend::graph {

/// The JSON config, same keys (heads, concat, dropout, input_dropout, residual and bias:
/// AttentionEndingOptions).
struct GatOptions : AttentionEndingOptions {
  int64_t in_channels = 0;      ///< input features (required)
  int64_t out_channels = 0;     ///< features per head (required)
  float negative_slope = 0.2f;  ///< LeakyReLU slope of the attention scores
  bool add_self_loops = true;   ///< attend over the graph with one self-loop per node
  /// Not in PyG; the GAT authors' code (the reference implementation of the paper) builds
  /// each head with its own input dropout mask. Only matters with input_dropout > 0.
  bool input_dropout_per_head = false;
  /// Not in PyG; the authors' code: dropout on the projected features W x of the messages
  /// (after the attention terms are computed from them), before aggregation. [0, 1).
  float value_dropout = 0.0f;
  /// Not in PyG; the authors' code: a learned bias on each of the two attention terms
  /// (per head), e_ij = LeakyReLU(att_src . h_j + b_src + att_dst . h_i + b_dst).
  bool attention_bias = false;
  /// Not in PyG; the authors' code initialises each head on its own: W_k [in, C] with the
  /// Glorot limit of (in, C) and each [C] attention vector as a 1 x 1 convolution, limit of
  /// (C, 1). PyG (the default) draws W [in, H*C] and att [H, C] as whole matrices.
  bool glorot_per_head = false;
  uint64_t seed = 0;            ///< seeds the Glorot initialisation

  /// The options above as the JSON config's keys, with their ranges and meanings.
  static const OptionList<GatOptions>& option_list();
  static GatOptions from_json(const Json& config);
  Json to_json() const;
};

/// Parameters: weight [in, H*C], att_src [H, C], att_dst [H, C] (Glorot), bias [H*C or C]
/// (zeros), res_weight [in, H*C or C] when residual, att_src_bias [H] and att_dst_bias [H]
/// (zeros) when attention_bias.
/// Forward: h = x W as [N, H, C] (with input_dropout_per_head, head k is dropout_k(x) W_k with
/// W_k the k-th column block of W: one pass over sparse x for all heads, or one dense product
/// per head);
/// e_ij = LeakyReLU(att_src . h_j + att_dst . h_i (+ biases)) from per-node terms
/// (ops::head_dot); the messages are h, or dropout(h) with value_dropout; softmax over
/// in-edges, dropout and aggregation fused in ops::sparse_attention; heads concatenated or
/// averaged; + residual + bias.
class GatConv : public NodeLayer {
 public:
  explicit GatConv(GatOptions options);
  std::string type_name() const override { return "gat"; }
  Json config() const override { return options_.to_json(); }
  Var forward(const NodeFeatures& x, const GraphContext& graph, uint64_t seed,
              AttentionExport* attention = nullptr) const override;
  int64_t out_features() const override;

  static void register_into(Registry& registry);

 private:
  GatOptions options_;
  Var weight_, att_src_, att_dst_, bias_, res_weight_, att_src_bias_, att_dst_bias_;
};

}  // namespace attend::graph
