#pragma once
/// How two explanations of the same nodes agree: Kendall's tau-b (kendall_tau.hpp) between
/// two methods' scores of each node's explained edges, averaged over the nodes both sets
/// explain (nodes where tau is undefined, all scores tied, are left out and counted). How edge
/// scores match a known truth: motif_edge_auc.hpp.

#include <cstdint>

#include "attend/graph/explain/explanation_file.hpp"

namespace attend::graph {

struct RankAgreement {
  double mean_tau = 0.0;     ///< NaN when no node has a defined tau
  int64_t nodes = 0;         ///< nodes with a defined tau
  int64_t undefined = 0;     ///< common nodes left out
};

/// Over the nodes both sets explain with edge scores (matched by edge id).
RankAgreement edge_rank_agreement(const ExplanationSet& a, const ExplanationSet& b);

}  // namespace attend::graph
