#pragma once
/// The balanced tree: the base graph of GNNExplainer's Tree-Cycles and Tree-Grid benchmarks.

#include <cstdint>

#include "attend/graph/graph_algorithms.hpp"

namespace attend::graph {

/// The complete `branching`-ary tree of `height` levels below the root: (b^(h+1) - 1) /
/// (b - 1) nodes numbered breadth first (the children of node i are b i + 1 .. b i + b), one
/// undirected edge (parent, child) per non-root node, in child order. A binary tree of
/// height 8 has 511 nodes. Throws attend::Error unless branching >= 2 and 0 <= height <= 30.
EdgeList balanced_tree(int64_t branching, int64_t height);

}  // namespace attend::graph
