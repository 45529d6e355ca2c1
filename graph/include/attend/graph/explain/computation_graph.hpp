#pragma once
/// ComputationGraph: the part of a graph that an L-layer message-passing model reads to
/// predict one node (the "computation graph" of Ying et al. 2019, GNNExplainer, Sec. 3), as
/// a small dataset of its own with maps back to the full graph.
///
/// Distances: d(v) = the fewest plain edges on a path v -> ... -> target. After L layers the
/// target's output depends on layer L - 1 - d(i) outputs of the nodes i with d(i) < L, so on
/// every plain edge j -> i with d(i) < L: these are the *explained* edges. The subgraph holds
/// the nodes with d <= L and the stored edges that give a plain edge ending at a node with
/// d < L (with both their plain directions), and carries the full graph's in-degrees as its
/// normalisation degrees (GraphContext::set_normalization_degrees: GCN's D^-1/2 (A + I)
/// D^-1/2 reads the degree of the source too, whose in-edges the subgraph may not hold), so
/// every quantity a layer computes for a node with d(i) < L is the same as in the full graph.
/// The target's logits on the subgraph are therefore those of the full graph, for any layer
/// that reads only in-edges and in-degrees (every built-in layer but graphormer, which
/// attends over all nodes). Nodes at d = L only feed their input row to the first layer.

#include <cstdint>
#include <vector>

#include "attend/graph/node_classifier.hpp"
#include "attend/graph/node_training.hpp"

namespace attend::graph {

struct ComputationGraph {
  int64_t hops = 0;              ///< L, the number of message-passing layers
  std::vector<int64_t> nodes;    ///< [n] dataset node id of each local node, ascending
  int64_t target = -1;           ///< local id of the explained node
  std::vector<int32_t> distance;  ///< [n] d(v) of each local node (0 .. L)
  /// The subgraph as a prepared dataset (local node ids): its GraphContext and the rows of the
  /// full graph's prepared input features (already normalised as the model expects). The
  /// dataset has no splits; labels are copied.
  PreparedNodeData data;
  std::vector<int64_t> plain_edge;  ///< [E_sub] full-graph plain edge id of each local plain edge
  /// Local plain edge ids of the explained edges (d(dst) < L, src != dst: a node's own input
  /// is not an edge of the explanation), ascending.
  std::vector<int64_t> explained;

  int64_t num_nodes() const { return static_cast<int64_t>(nodes.size()); }
};

/// The computation graph of dataset node `target` for a model of `hops` message-passing
/// layers over `full` (prepared by prepare_node_data). Throws attend::Error when `target` is
/// out of range or hops < 0 (0 hops: a model that reads no edge, whose graph has no
/// explained edge).
ComputationGraph computation_graph(const PreparedNodeData& full, int64_t target, int hops);

}  // namespace attend::graph
