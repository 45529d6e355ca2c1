#pragma once
/// The structure-only baseline of every explanation AUC table: edge j -> i scores
/// 1 / in-degree(i) (the weight every edge would get from an attention layer that learned
/// nothing, a uniform softmax over the in-edges). It reads no model: an explanation method
/// whose AUC does not beat it has not shown that it explains anything (issue #14: on
/// BA-Shapes the motif edges join nodes of low degree).

#include <vector>

#include "attend/graph/explain/computation_graph.hpp"

namespace attend::graph {

/// [explained edges of cg] 1 / (plain in-degree of the edge's destination), which for these
/// edges is the destination's in-degree in the full graph.
std::vector<float> degree_edge_scores(const ComputationGraph& cg);

}  // namespace attend::graph
