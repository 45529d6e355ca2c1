#include "attend/graph/explain/explanation_agreement.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "attend/graph/explain/kendall_tau.hpp"
#include "attend/graph/explain/roc_auc.hpp"

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

double ground_truth_auc(const ExplanationSet& set, const MotifGroundTruth& truth) {
  std::set<std::pair<int64_t, int64_t>> motif;
  for (int64_t e = 0; e < truth.num_edges(); ++e) motif.insert(std::minmax(truth.edge_src[e], truth.edge_dst[e]));
  std::vector<float> scores;
  std::vector<bool> positive;
  for (const NodeExplanation& x : set.explanations) {
    for (std::size_t e = 0; e < x.edge_score.size(); ++e) {
      scores.push_back(x.edge_score[e]);
      positive.push_back(motif.count(std::minmax(x.edge_src[e], x.edge_dst[e])) > 0);
    }
  }
  return roc_auc(scores, positive);
}

}  // namespace attend::graph
