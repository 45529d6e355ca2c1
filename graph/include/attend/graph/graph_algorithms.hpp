#pragma once
/// Graph analysis that models need, computed with Boost.Graph on plain edge lists:
/// edge-list preparation (symmetrise, self-loops), degree statistics, connected components,
/// and BFS shortest-path distances (the structural bias of the dense graph transformer).

#include <cstdint>
#include <vector>

namespace attend::graph {

/// A directed edge list over nodes 0..num_nodes-1 (edge e goes src[e] -> dst[e]).
struct EdgeList {
  int64_t num_nodes = 0;
  std::vector<int64_t> src, dst;
  int64_t size() const { return static_cast<int64_t>(src.size()); }
};

/// Both directions of every edge, duplicates removed, sorted by (dst, src). Self-loops kept once.
EdgeList symmetrize(const EdgeList& edges);
/// Remove existing self-loops, then add one self-loop per node (PyG's add_self_loops).
EdgeList with_self_loops(const EdgeList& edges);

struct DegreeStats {
  int64_t min_in = 0, max_in = 0;
  double mean_in = 0.0;
  int64_t isolated = 0;  ///< nodes with neither in- nor out-edges
};
DegreeStats degree_stats(const EdgeList& edges);

/// Component id per node (edges taken as undirected), numbered 0.. in order of first node;
/// `count` receives the number of components.
std::vector<int64_t> connected_components(const EdgeList& edges, int64_t* count = nullptr);

/// Unweighted shortest-path distance between every pair of nodes, edges taken as undirected,
/// by one Boost BFS per source (parallel over sources). Returns [N * N] row-major;
/// unreachable pairs and distances above `max_distance` are set to `max_distance + 1`.
/// Meant for small graphs (graphormer); N * N memory.
std::vector<int32_t> shortest_path_distances(const EdgeList& edges, int32_t max_distance);

}  // namespace attend::graph
