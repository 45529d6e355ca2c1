#pragma once
/// GraphContext: the graph a stack of node layers runs on, prepared once per dataset.
///
/// It holds two views of the same graph, each a destination-major Csr (with its cached
/// transpose) plus, per edge id, the edge's source, destination and relation: `plain` (the
/// message-passing edges) and `looped` (the same without existing self-loops, plus one
/// self-loop per node, as PyTorch Geometric's add_self_loops). Kernels see only the arrays.

#include <cstdint>
#include <vector>

#include "attend/core/csr.hpp"
#include "attend/graph/node_dataset.hpp"

namespace attend::graph {

/// One view: the Csr and, per edge id, where the edge comes from and goes to.
struct GraphView {
  Csr csr;
  std::vector<int64_t> src, dst;   ///< [E] endpoints by edge id
  std::vector<int64_t> relation;   ///< [E] relation id by edge id (0 for untyped graphs)
  int64_t num_edges() const { return static_cast<int64_t>(src.size()); }
};

class GraphContext {
 public:
  /// Undirected datasets get both directions of every pair (duplicates removed). Typed,
  /// directed datasets keep subject -> object edges with relation r and, as in R-GCN, gain
  /// the inverse edge with relation r + R. Self-loops of `looped` get relation
  /// `num_relations() - 1` (the last relation is "self").
  static GraphContext from_dataset(const NodeDataset& dataset);

  int64_t num_nodes() const { return num_nodes_; }
  /// Relations in the views, the self-loop relation included.
  int64_t num_relations() const { return num_relations_; }
  const GraphView& plain() const { return plain_; }
  const GraphView& looped() const { return looped_; }
  const GraphView& view(bool self_loops) const { return self_loops ? looped_ : plain_; }

 private:
  int64_t num_nodes_ = 0;
  int64_t num_relations_ = 1;
  GraphView plain_, looped_;
};

}  // namespace attend::graph
