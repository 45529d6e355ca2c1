#include <catch2/catch.hpp>

#include <cmath>
#include <tuple>
#include <vector>

#include "attend/core/error.hpp"
#include "attend/graph/explain/eraser_aopc.hpp"
#include "attend/graph/explain/fidelity.hpp"
#include "attend/graph/explain/kendall_tau.hpp"
#include "attend/graph/explain/motif_edge_auc.hpp"
#include "attend/graph/explain/roc_auc.hpp"

using namespace attend::graph;

TEST_CASE("ROC AUC: the Mann-Whitney statistic, ties counted as one half", "[explain]") {
  // Positives 0.35 and 0.8 against negatives 0.1 and 0.4: 3 of 4 pairs ordered.
  CHECK(roc_auc({0.1f, 0.4f, 0.35f, 0.8f}, {false, false, true, true}) == Approx(0.75));
  // Positives {1, 2}, negatives {1, 0}: (1, 1) a tie, the other three ordered: 3.5 / 4.
  CHECK(roc_auc({1.0f, 1.0f, 2.0f, 0.0f}, {true, false, true, false}) == Approx(0.875));
  CHECK(roc_auc({3.0f, 3.0f, 3.0f}, {true, false, true}) == Approx(0.5));
  CHECK(std::isnan(roc_auc({1.0f, 2.0f}, {true, true})));
}

namespace {

// One node's explanation: the given directed edges (dataset ids) with their scores.
NodeExplanation edge_explanation(int64_t node, const std::vector<std::tuple<int64_t, int64_t, float>>& edges) {
  NodeExplanation x;
  x.node = node;
  for (const auto& [src, dst, score] : edges) {
    x.edge_id.push_back(static_cast<int64_t>(x.edge_id.size()));
    x.edge_src.push_back(src);
    x.edge_dst.push_back(dst);
    x.edge_score.push_back(score);
  }
  return x;
}

}  // namespace

TEST_CASE("motif edge AUC: explained-edges and khop-undirected protocols, pooled over nodes", "[explain]") {
  // The path 0-1-2 with the triangle 2-3-4 (the motif) on its end; a self-loop at 3 and the
  // pair 1-2 listed twice, both to be ignored by khop-undirected.
  NodeDataset graph;
  graph.num_nodes = 5;
  graph.edge_src = {0, 1, 2, 3, 2, 3, 2};
  graph.edge_dst = {1, 2, 3, 4, 4, 3, 1};
  MotifGroundTruth truth;
  truth.node_motif = {-1, -1, 0, 0, 0};
  truth.edge_src = {2, 3, 2};
  truth.edge_dst = {3, 4, 4};
  ExplanationSet set;
  set.explanations.push_back(
      edge_explanation(3, {{1, 2, 0.32f}, {2, 3, 0.3f}, {4, 3, 0.2f}, {2, 4, 0.1f}, {4, 2, 0.25f}, {0, 1, 0.05f}}));

  // explained-edges: positives 0.3, 0.2, 0.1, 0.25 against negatives 0.32 and 0.05: 4 of 8.
  CHECK(explained_edge_auc(set, truth) == Approx(0.5));
  // khop-undirected, 2 hops from node 3 ({1, 2, 3, 4}): {1,2} 0.32 + 0 negative; {2,3} 0.3,
  // {3,4} 0 + 0.2 and {2,4} 0.1 + 0.25 positive: only 0.35 above 0.32, 1 of 3.
  CHECK(khop_undirected_auc(set, truth, graph, 2) == Approx(1.0 / 3.0));
  // 3 hops reach node 0: {0,1} 0.05 is one more negative, below all three: 4 of 6.
  CHECK(khop_undirected_auc(set, truth, graph, 3) == Approx(2.0 / 3.0));
  // 1 hop: only the triangle, no negative.
  CHECK(std::isnan(khop_undirected_auc(set, truth, graph, 1)));

  // A second node, 0, pooled into the same curve (its own AUC would be undefined: no positive).
  set.explanations.push_back(edge_explanation(0, {{1, 0, 0.9f}, {2, 1, 0.0f}}));
  // explained-edges: negatives 0.32, 0.05, 0.9, 0: each positive beats 0.05 and 0: 8 of 16.
  CHECK(explained_edge_auc(set, truth) == Approx(0.5));
  // khop-undirected, 2 hops: node 0 adds {0,1} 0.9 and {1,2} 0 + 0 as negatives: 1 + 0 + 3 of 9.
  CHECK(khop_undirected_auc(set, truth, graph, 2) == Approx(4.0 / 9.0));
  // motif_edge_auc picks the protocol (hops only for khop-undirected).
  CHECK(motif_edge_auc(set, truth, graph, MotifAucProtocol::kExplainedEdges, 2) == Approx(0.5));
  CHECK(motif_edge_auc(set, truth, graph, MotifAucProtocol::kKhopUndirected, 2) == Approx(4.0 / 9.0));

  CHECK(parse_motif_auc_protocol("khop-undirected") == MotifAucProtocol::kKhopUndirected);
  CHECK(parse_motif_auc_protocol(motif_auc_protocol_names()[0]) == MotifAucProtocol::kExplainedEdges);
  CHECK_THROWS_AS(parse_motif_auc_protocol("pooled"), attend::InputError);
}

TEST_CASE("Kendall's tau-b: pairs tied in one ranking shrink the denominator", "[explain]") {
  // x = 1 2 2 3, y = 1 2 3 3: 4 concordant pairs, none discordant, one tie in each:
  // 4 / sqrt((6 - 1)(6 - 1)) = 0.8 (scipy.stats.kendalltau gives the same).
  CHECK(kendall_tau_b({1, 2, 2, 3}, {1, 2, 3, 3}) == Approx(0.8));
  CHECK(kendall_tau_b({1, 2, 3}, {3, 2, 1}) == Approx(-1.0));
  // x = 1 2 3 4, y = 1 3 2 4: 5 concordant, 1 discordant, no ties: 4 / 6.
  CHECK(kendall_tau_b({1, 2, 3, 4}, {1, 3, 2, 4}) == Approx(4.0 / 6.0));
  CHECK(std::isnan(kendall_tau_b({1, 1, 1}, {1, 2, 3})));
}

TEST_CASE("fidelity and characterization score", "[explain]") {
  // Removing the explanation keeps 2 of 4 predictions (fid+ 0.5); keeping only it keeps 3 of
  // 4 (fid- 0.25); charact = 1 / (0.5 / 0.5 + 0.5 / 0.75) = 0.6.
  const Fidelity f = fidelity({0, 1, 2, 1}, {0, 0, 0, 1}, {0, 1, 2, 0});
  CHECK(f.plus == Approx(0.5));
  CHECK(f.minus == Approx(0.25));
  CHECK(characterization_score(f) == Approx(0.6));
  CHECK(std::isnan(characterization_score({0.0, 0.2})));
}

TEST_CASE("ERASER AOPC: bins, top-k masks and the mean drop", "[explain]") {
  CHECK(aopc_percentages() == std::vector<int>{1, 5, 10, 20, 50});
  CHECK(top_count(1, 10) == 1);
  CHECK(top_count(5, 30) == 2);  // 1.5 rounded up
  CHECK(top_count(50, 7) == 4);
  CHECK(top_count(20, 0) == 1);
  CHECK(top_k_mask({0.1f, 0.5f, 0.5f, 0.2f}, 2) == std::vector<char>{0, 1, 1, 0});
  CHECK(top_k_mask({0.1f, 0.5f, 0.5f, 0.2f}, 1) == std::vector<char>{0, 1, 0, 0});  // tie: lower index
  CHECK(aopc(0.9, {0.5, 0.7}) == Approx(0.3));
}
