#pragma once
/// GraphTransformerConv: the graph transformer layer of Shi et al., "Masked Label Prediction:
/// Unified Message Passing Model for Semi-Supervised Classification" (IJCAI 2021), registered
/// as "graph_transformer". Options follow PyTorch Geometric's TransformerConv.

#include <cstdint>

#include "attend/core/option_list.hpp"
#include "attend/graph/layers/attention_layer.hpp"
#include "attend/graph/node_layer.hpp"

namespace attend {
class Registry;
}

namespace attend::graph {

/// The JSON config, same keys (heads, concat, dropout and input_dropout: AttentionHeadsOptions).
struct GraphTransformerOptions : AttentionHeadsOptions {
  int64_t in_channels = 0;     ///< input features (required)
  int64_t out_channels = 0;    ///< features per head (required)
  bool beta = false;           ///< gated skip: out = b skip + (1 - b) attn, b learned per node
  int64_t edge_dim = 0;        ///< edge feature width (0 = no edge features); needs GraphView::edge_features
  bool root_weight = true;     ///< add the skip projection of the input (x_i W_skip)
  bool add_self_loops = false; ///< attend over the self-looped view (PyG's layer has no loops)
  bool bias = true;            ///< bias of the skip projection
  uint64_t seed = 0;           ///< seeds the Glorot initialisation

  /// The options above as the JSON config's keys, with their ranges and meanings.
  static const OptionList<GraphTransformerOptions>& option_list();
  static GraphTransformerOptions from_json(const Json& config);
  Json to_json() const;
};

/// Parameters: query/key/value weights [in, H*C] and biases [H*C]; edge_weight [edge_dim, H*C]
/// when edge_dim > 0; skip_weight [in, out] (+ skip_bias [out] when bias) when root_weight;
/// beta_weight [3 out, 1] when beta (out = H*C or C).
/// Forward (Shi et al. 2021, Eq. 3-7): q = x W_q + b_q, k, v alike as [N, H, C];
/// e = W_e edge_features as [E, H, C];
/// alpha_ij = softmax_j(q_i . (k_j + e_ij) / sqrt(C)); out_i = sum_j alpha_ij (v_j + e_ij),
/// fused in ops::sparse_attention (rule dot), attention dropout inside; heads concatenated or
/// averaged. With root_weight, r = x W_skip (+ b): out + r, or with beta,
/// b = sigmoid([out, r, out - r] w_beta) and out = b r + (1 - b) out.
class GraphTransformerConv : public NodeLayer {
 public:
  explicit GraphTransformerConv(GraphTransformerOptions options);
  std::string type_name() const override { return "graph_transformer"; }
  Json config() const override { return options_.to_json(); }
  Var forward(const NodeFeatures& x, const GraphContext& graph, uint64_t seed,
              AttentionExport* attention = nullptr) const override;
  int64_t out_features() const override;

  static void register_into(Registry& registry);

 private:
  GraphTransformerOptions options_;
  Var query_weight_, query_bias_, key_weight_, key_bias_, value_weight_, value_bias_;
  Var edge_weight_, skip_weight_, skip_bias_, beta_weight_;
};

}  // namespace attend::graph
