#pragma once
/// GraphormerConv: dense graph transformer attention with Graphormer's structural encodings
/// (Ying et al., "Do Transformers Really Perform Bad for Graph Representation?", NeurIPS
/// 2021), registered as "graphormer". For small graphs: attention runs over all node pairs.
/// It has no per-edge messages, so it refuses a context with an edge mask (InputError).

#include <cstdint>

#include "attend/core/option_list.hpp"
#include "attend/graph/node_layer.hpp"

namespace attend {
class Registry;
}

namespace attend::graph {

/// The JSON config, same keys.
struct GraphormerOptions {
  int64_t in_channels = 0;     ///< input features (required)
  int64_t out_channels = 0;    ///< output features (required), a multiple of heads
  int64_t heads = 1;
  int64_t max_distance = 5;    ///< shortest-path distances above this share one bias
  int64_t max_degree = 64;     ///< in-degrees above this share one degree embedding
  float dropout = 0.0f;        ///< dropout on the attention output (training)
  float input_dropout = 0.0f;  ///< dropout on the input features (training)
  uint64_t seed = 0;           ///< seeds the initialisation

  /// The options above as the JSON config's keys, with their ranges and meanings.
  static const OptionList<GraphormerOptions>& option_list();
  static GraphormerOptions from_json(const Json& config);
  Json to_json() const;
};

/// Graphs with more nodes are refused: the bias alone is N * N * heads floats.
inline constexpr int64_t kGraphormerMaxNodes = 4096;

/// Parameters: in_weight [in, D] (D = out_channels), degree_embedding [max_degree + 1, D],
/// query/key/value/out weights [D, D] (Glorot), spatial_bias [max_distance + 2, H]
/// (N(0, 0.02^2)), bias [D] (zeros).
/// Forward (Ying et al. 2021, Eq. 5-8): h = x W_in + z(deg_in(i)) (centrality encoding with
/// the in-degree of the plain view); q, k, v = h W as [1, H, N, D/H]; attention over all
/// pairs with the per-head bias b(phi(i, j)) of the BFS shortest-path distance phi (capped:
/// index max_distance + 1 for longer or unreachable pairs), fused in ops::dense_attention;
/// out = dropout(attn W_o) + h + bias.
/// DEVIATION: one attention sub-layer without layer norm or feed-forward block (the node
/// classifier's activation sits between layers); dropout is on the attention output since
/// the dense kernel has no attention dropout; no virtual graph token.
/// Distances come from GraphContext::distances (computed once per graph and cap).
class GraphormerConv : public NodeLayer {
 public:
  explicit GraphormerConv(GraphormerOptions options);
  std::string type_name() const override { return "graphormer"; }
  Json config() const override { return options_.to_json(); }
  /// Throws attend::InputError for graphs with more than kGraphormerMaxNodes nodes. When
  /// `attention` is given it receives the weights [N * N, H] by pair (i * N + j) with a null
  /// view (the pairs are not edges).
  Var forward(const NodeFeatures& x, const GraphContext& graph, uint64_t seed,
              AttentionExport* attention = nullptr) const override;
  int64_t out_features() const override { return options_.out_channels; }
  /// Attends over every pair of nodes (shortest-path and degree biases): not 1-hop.
  bool reads_in_neighbors_only() const override { return false; }

  static void register_into(Registry& registry);

 private:
  GraphormerOptions options_;
  Var in_weight_, degree_embedding_, query_weight_, key_weight_, value_weight_, out_weight_;
  Var spatial_bias_, bias_;
};

}  // namespace attend::graph
