#pragma once
/// NetworkMotif: a small graph planted into a base graph, with a structural role per node
/// (the motifs of GNNExplainer's synthetic benchmarks, Ying et al. 2019).

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace attend::graph {

struct NetworkMotif {
  std::string name;
  int64_t num_nodes = 0;
  std::vector<std::pair<int64_t, int64_t>> edges;  ///< undirected, each once, nodes 0..num_nodes-1
  std::vector<int64_t> roles;                      ///< [num_nodes] role ids 0..
  int64_t anchor = 0;  ///< the node joined to the base graph by one edge
  int64_t num_roles() const;
};

/// The five-node house: a square 0-1-2-3 with the roof 4 on the edge 0-1 (6 edges). Roles as
/// the GNNExplainer authors number them: 0 for the two nodes under the roof (0, 1), 1 for the
/// two floor nodes (2, 3), 2 for the roof (4). Anchored at node 0.
NetworkMotif house_motif();
/// The cycle of `length` nodes 0-1-...-(length-1)-0, one role; anchored at node 0.
NetworkMotif cycle_motif(int64_t length);
/// The `side` x `side` grid (node r * side + c, edges to the right and downwards), one role;
/// anchored at the corner node 0.
NetworkMotif grid_motif(int64_t side);

}  // namespace attend::graph
