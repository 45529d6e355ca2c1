#pragma once
/// How two explanations of the same nodes agree, and how edge scores match a known truth:
///   * Kendall's tau-b (kendall_tau.hpp) between two methods' scores of each node's explained
///     edges, averaged over the nodes both sets explain (nodes where tau is undefined, all
///     scores tied, are left out and counted);
///   * ROC AUC (roc_auc.hpp) of the edge scores against the motif edges of a synthetic
///     benchmark (an edge is positive when its undirected pair is a motif edge), pooled over
///     all explained nodes as GNNExplainer's evaluation does (Ying et al. 2019, Sec. 5).

#include <cstdint>

#include "attend/graph/explain/explanation_file.hpp"
#include "attend/graph/motif_ground_truth.hpp"

namespace attend::graph {

struct RankAgreement {
  double mean_tau = 0.0;     ///< NaN when no node has a defined tau
  int64_t nodes = 0;         ///< nodes with a defined tau
  int64_t undefined = 0;     ///< common nodes left out
};

/// Over the nodes both sets explain with edge scores (matched by edge id).
RankAgreement edge_rank_agreement(const ExplanationSet& a, const ExplanationSet& b);

/// NaN when the pooled edges hold no positive or no negative.
double ground_truth_auc(const ExplanationSet& set, const MotifGroundTruth& truth);

}  // namespace attend::graph
