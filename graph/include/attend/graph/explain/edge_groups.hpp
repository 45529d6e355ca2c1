#pragma once
/// The inputs an edge method takes away (or keeps) together: each explained edge alone, or,
/// with `symmetric`, every edge joining the same two nodes in either direction with the same
/// relation (the undirected edge). Occlusion (occlusion.hpp) and Shapley sampling
/// (shapley_sampling.hpp) both score a group once and give each of its explained edges
/// that score.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "attend/graph/graph_context.hpp"

namespace attend::graph {

struct EdgeGroups {
  /// Local plain edge ids of each group, in the order the groups first appear in `edges`;
  /// with `symmetric` a group also holds the edges of the pair that are not explained.
  std::vector<std::vector<int64_t>> groups;
  std::vector<std::size_t> group_of;  ///< [edges.size()] the group of each explained edge
};

/// The groups of `edges` (local plain edge ids of `plain`, the computation graph's plain view).
EdgeGroups edge_groups(const GraphView& plain, const std::vector<int64_t>& edges, bool symmetric);

}  // namespace attend::graph
