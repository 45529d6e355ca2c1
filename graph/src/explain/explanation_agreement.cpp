#include "attend/graph/explain/explanation_agreement.hpp"

#include <cmath>
#include <map>

#include "attend/graph/explain/kendall_tau.hpp"

namespace attend::graph {

RankAgreement edge_rank_agreement(const ExplanationSet& a, const ExplanationSet& b) {
  std::map<int64_t, const NodeExplanation*> by_node;
  for (const NodeExplanation& x : b.explanations) by_node[x.node] = &x;
  RankAgreement out;
  double sum = 0.0;
  for (const NodeExplanation& x : a.explanations) {
    const auto found = by_node.find(x.node);
    if (found == by_node.end() || x.edge_score.empty() || found->second->edge_score.empty()) continue;
    std::map<int64_t, float> other;
    for (std::size_t e = 0; e < found->second->edge_id.size(); ++e) other[found->second->edge_id[e]] = found->second->edge_score[e];
    std::vector<float> sx, sy;
    for (std::size_t e = 0; e < x.edge_id.size(); ++e) {
      const auto o = other.find(x.edge_id[e]);
      if (o == other.end()) continue;
      sx.push_back(x.edge_score[e]);
      sy.push_back(o->second);
    }
    const double tau = kendall_tau_b(sx, sy);
    if (std::isnan(tau)) {
      ++out.undefined;
      continue;
    }
    sum += tau;
    ++out.nodes;
  }
  out.mean_tau = out.nodes > 0 ? sum / static_cast<double>(out.nodes) : NAN;
  return out;
}

}  // namespace attend::graph
