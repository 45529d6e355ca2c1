#include "attend/graph/barabasi_albert_graph.hpp"

#include <algorithm>

#include "attend/core/error.hpp"

namespace attend::graph {

EdgeList barabasi_albert_graph(int64_t num_nodes, int64_t edges_per_node, Rng& rng) {
  // Barabasi & Albert 1999: growth with preferential attachment.
  const int64_t m = edges_per_node;
  ATTEND_CHECK(m >= 1 && m < num_nodes, "barabasi_albert_graph: need 1 <= edges_per_node < num_nodes, got "
                                            << m << " and " << num_nodes);
  EdgeList g;
  g.num_nodes = num_nodes;
  std::vector<int64_t> endpoints;  // every node once per incident edge: a degree-weighted urn
  for (int64_t leaf = 1; leaf <= m; ++leaf) {
    g.src.push_back(leaf);
    g.dst.push_back(0);
    endpoints.push_back(leaf);
    endpoints.push_back(0);
  }
  std::vector<int64_t> targets;
  for (int64_t v = m + 1; v < num_nodes; ++v) {
    targets.clear();
    while (static_cast<int64_t>(targets.size()) < m) {
      const int64_t t = endpoints[rng.below(endpoints.size())];
      if (std::find(targets.begin(), targets.end(), t) == targets.end()) targets.push_back(t);
    }
    for (int64_t t : targets) {
      g.src.push_back(v);
      g.dst.push_back(t);
      endpoints.push_back(t);
      endpoints.push_back(v);
    }
  }
  return g;
}

}  // namespace attend::graph
