#pragma once
/// NodeLayer: the interface of every layer that maps node features over a graph
/// (gat, gatv2, gcn, rgat, rgcn, graph_transformer, graphormer, node_linear, batch_norm, and
/// plugin layers).

#include <cstdint>

#include "attend/core/module.hpp"
#include "attend/graph/graph_context.hpp"
#include "attend/graph/node_features.hpp"

namespace attend::graph {

/// Attention weights a layer hands back when asked: [E, H] by edge id of `view`.
struct AttentionExport {
  Tensor weights;                 ///< [E, H]
  const GraphView* view = nullptr;  ///< the edges the weights belong to
};

class NodeLayer : public Module {
 public:
  /// x [N, in] -> [N, out]. `seed` seeds this call's dropout masks (used only in training
  /// mode). When `attention` is given and the layer attends, it receives the weights.
  virtual Var forward(const NodeFeatures& x, const GraphContext& graph, uint64_t seed,
                      AttentionExport* attention = nullptr) const = 0;
  /// Output features per node.
  virtual int64_t out_features() const = 0;
  /// Whether a node's output depends only on its own input and its in-neighbours' inputs
  /// (message passing over `graph`'s views), so that layer-wise inference over 1-hop
  /// neighbourhoods gives what the whole graph gives. Plugin layers are assumed to be;
  /// graphormer, which attends over all node pairs, is not.
  virtual bool reads_in_neighbors_only() const { return true; }
  /// Whether a node's output reads other nodes at all; false for a layer that maps each
  /// node's row alone (node_linear), which adds no hop to a model's receptive field.
  /// Plugin layers are assumed to.
  virtual bool passes_messages() const { return true; }
  /// Whether the layer normalises the output of the layer before it (batch_norm): a
  /// NodeClassifier then activates after this layer instead of between the two, and under
  /// jumping knowledge concatenates this layer's output in place of the one before.
  virtual bool normalizes_previous_layer() const { return false; }
};

}  // namespace attend::graph
