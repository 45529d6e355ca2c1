#include "attend/graph/explain/degree_baseline.hpp"

namespace attend::graph {

std::vector<float> degree_edge_scores(const ComputationGraph& cg) {
  const GraphView& plain = cg.data.graph.plain();
  std::vector<float> scores;
  for (int64_t e : cg.explained) {
    scores.push_back(1.0f / static_cast<float>(plain.csr.in_degree(plain.dst[e])));
  }
  return scores;
}

}  // namespace attend::graph
