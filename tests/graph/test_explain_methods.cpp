#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "attend/core/error.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/quadrature.hpp"
#include "attend/graph/explain/attention_rollout.hpp"
#include "attend/graph/explain/computation_graph.hpp"
#include "attend/graph/explain/degree_baseline.hpp"
#include "attend/graph/explain/explained_quantity.hpp"
#include "attend/graph/explain/faithfulness.hpp"
#include "attend/graph/explain/gradient_attribution.hpp"
#include "attend/graph/explain/integrated_gradients.hpp"
#include "attend/graph/explain/node_explanation.hpp"
#include "explain_models.hpp"
#include "scoped_threads.hpp"

using namespace attend;
using namespace attend::graph;
using attend::testing::ScopedThreads;
using attend::testing::TinyNodeModel;

namespace {

/// Checks the derivatives `g` of f against central differences at x, entries 0, stride,
/// 2 stride, ...; returns how many of those are visibly non-zero (the check must see some).
int check_central_differences(const Tensor& g, const Tensor& x, const std::function<double(const Tensor&)>& f,
                              int64_t stride) {
  const double eps = 1e-3;
  int non_zero = 0;
  for (int64_t i = 0; i < x.numel(); i += stride) {
    Tensor up = x, down = x;
    up[i] += static_cast<float>(eps);
    down[i] -= static_cast<float>(eps);
    const double numeric = (f(up) - f(down)) / (2 * eps);
    CHECK(g[i] == Approx(numeric).margin(2e-3).epsilon(2e-2));
    non_zero += std::abs(numeric) > 1e-3;
  }
  return non_zero;
}

}  // namespace

TEST_CASE("attention rollout: the flow through a 4-node graph is the product of the layers' matrices", "[explain]") {
  // Layer 1 and layer 2 as (src, dst, weight); each node's in-weights sum to 1.
  const LayerAttention l1{{0, 1, 1, 0, 2, 2, 1, 3, 3}, {0, 0, 1, 1, 1, 2, 2, 2, 3},
                          {0.5f, 0.5f, 0.2f, 0.3f, 0.5f, 0.6f, 0.1f, 0.3f, 1.0f}};
  const LayerAttention l2{{0, 1, 1, 0, 2, 2, 3}, {0, 0, 1, 1, 1, 2, 3}, {0.4f, 0.6f, 0.5f, 0.25f, 0.25f, 1.0f, 1.0f}};
  const AttentionRollout r = attention_rollout(4, {l1, l2}, 0);
  // e_0^T A_2 A_1 with A_l[i][j] = weight of j -> i, multiplied out here.
  double a1[4][4] = {}, a2[4][4] = {};
  for (std::size_t e = 0; e < l1.src.size(); ++e) a1[l1.dst[e]][l1.src[e]] += l1.weight[e];
  for (std::size_t e = 0; e < l2.src.size(); ++e) a2[l2.dst[e]][l2.src[e]] += l2.weight[e];
  for (int j = 0; j < 4; ++j) {
    double product = 0.0;
    for (int k = 0; k < 4; ++k) product += a2[0][k] * a1[k][j];
    CHECK(r.node[j] == Approx(product).margin(1e-7));
  }
  CHECK(r.node[0] == Approx(0.38));  // by hand: 0.4 * 0.5 + 0.6 * 0.3
  // Layer 2 flows: 0 -> 0 gets 0.4, 1 -> 0 gets 0.6, nothing reaches node 1's in-edges.
  CHECK(r.edge[1][0] == Approx(0.4));
  CHECK(r.edge[1][1] == Approx(0.6));
  for (int e = 2; e < 7; ++e) CHECK(r.edge[1][e] == 0.0);
  // Layer 1: r_1 = (0.4, 0.6, 0, 0); edge 2 -> 1 carries 0.6 * 0.5, edge 1 -> 2 nothing.
  CHECK(r.edge[0][4] == Approx(0.3));
  CHECK(r.edge[0][3] == Approx(0.18));
  CHECK(r.edge[0][6] == 0.0);
}

TEST_CASE("attention heads: mean and max", "[explain]") {
  const Tensor w({2, 3}, std::vector<float>{0.1f, 0.5f, 0.3f, 1.0f, 0.0f, 0.5f});
  CHECK(reduce_heads(w, HeadReduction::kMax) == std::vector<float>{0.5f, 1.0f});
  CHECK(reduce_heads(w, HeadReduction::kMean)[0] == Approx(0.3));
  CHECK_THROWS_AS(head_reduction_from_name("sum"), InputError);
}

TEST_CASE("feature and edge-mask gradients of the explained quantity match finite differences (gat, gcn, rgcn)",
          "[explain]") {
  ScopedThreads threads(1);
  for (const std::string layer : {"gat", "gcn", "rgcn"}) {
    CAPTURE(layer);
    TinyNodeModel tiny(layer, 40, 60, 4, 3, 8);
    NodeClassifier& model = tiny.model;
    const ComputationGraph cg = computation_graph(tiny.data, 5, 2);
    // The features, for class 1.
    const Tensor x = dense_features(cg);
    const Tensor of_x = feature_gradient(model, TargetForward(model, cg, 1), x, 1).gradient;
    auto f_of_x = [&](const Tensor& input) {
      NoGradGuard no_grad;
      return static_cast<double>(
          target_log_probability(model, NodeFeatures(Var(input)), cg.data.graph, {cg.target}, {1}).value().item());
    };
    CHECK(check_central_differences(of_x, x, f_of_x, 3) > 3);
    // The edge mask at 1, for class 2.
    const Tensor ones({cg.data.graph.plain().num_edges()}, 1.0f);
    const Tensor of_mask = edge_gradient(model, TargetForward(model, cg, 1), ones, 2).gradient;
    auto f_of_mask = [&](const Tensor& mask) {
      NoGradGuard no_grad;
      return static_cast<double>(target_log_probability(model, cg.data.features, cg.data.graph.with_edge_mask(Var(mask)),
                                                        {cg.target}, {2})
                                     .value()
                                     .item());
    };
    CHECK(check_central_differences(of_mask, ones, f_of_mask, 1) > 3);
  }
}

TEST_CASE("integrated gradients on features and on edges: completeness gap under 1 % at 50 steps of either rule (gat, gcn, rgcn)",
          "[explain]") {
  ScopedThreads threads(1);
  for (const std::string layer : {"gat", "gcn", "rgcn"}) {
    CAPTURE(layer);
    TinyNodeModel tiny(layer, 40, 60, 4, 3, 9);
    const ComputationGraph cg = computation_graph(tiny.data, 7, 2);
    TargetForwards passes(tiny.model, cg);
    for (const QuadratureKind kind : {QuadratureKind::kMidpoint, QuadratureKind::kGaussLegendre}) {
      for (const bool edges : {false, true}) {
        CAPTURE(quadrature_name(kind), edges);
        auto ig = [&](int steps, int64_t batch_values) {
          return edges ? integrated_gradients_edges(passes, 0, PathSteps{kind, steps}, batch_values)
                       : integrated_gradients_features(passes, 0, PathSteps{kind, steps}, batch_values);
        };
        const int64_t all_at_once = int64_t{1} << 22;  // every step in one batch
        const IntegratedGradients fifty = ig(50, all_at_once);
        const double change = fifty.value - fifty.baseline_value;
        CAPTURE(fifty.value, fifty.baseline_value, fifty.completeness_gap);
        REQUIRE(std::abs(change) > 1e-3);
        CHECK(std::abs(fifty.completeness_gap) < 0.01 * std::abs(change));
        // One step is the gradient at x / 2 times x: a cruder rule with a visibly larger gap.
        CHECK(std::abs(ig(1, all_at_once).completeness_gap) > std::abs(fifty.completeness_gap));
        // Batches of one step give the same attributions as all steps in one batch.
        const IntegratedGradients unbatched = ig(50, 1);
        for (int64_t i = 0; i < fifty.attribution.numel(); ++i)
          CHECK(unbatched.attribution[i] == Approx(fifty.attribution[i]).margin(1e-6));
        if (!edges) continue;
        // Edges that carry no message to the target get nothing.
        for (int64_t e = 0; e < fifty.attribution.numel(); ++e) {
          if (cg.distance[cg.data.graph.plain().dst[e]] >= 2) CHECK(fifty.attribution[e] == 0.0f);
        }
      }
    }
  }
}

TEST_CASE("integrated gradients with a gap bound: refined until the gap is within it or the cap stops it", "[explain]") {
  ScopedThreads threads(1);
  TinyNodeModel tiny("gcn", 40, 60, 4, 3, 9);
  const ComputationGraph cg = computation_graph(tiny.data, 7, 2);
  TargetForwards passes(tiny.model, cg);
  for (const QuadratureKind kind : {QuadratureKind::kMidpoint, QuadratureKind::kGaussLegendre}) {
    CAPTURE(quadrature_name(kind));
    const int factor = kind == QuadratureKind::kMidpoint ? 3 : 2;
    for (const bool edges : {false, true}) {
      CAPTURE(edges);
      auto ig = [&](const PathSteps& path) {
        return edges ? integrated_gradients_edges(passes, 0, path) : integrated_gradients_features(passes, 0, path);
      };
      const IntegratedGradients one = ig(PathSteps{kind, 1});
      const double change = one.value - one.baseline_value;
      REQUIRE(std::abs(one.completeness_gap) > 1e-3 * std::abs(change));  // one step is not enough
      CHECK(one.steps == 1);
      const IntegratedGradients refined = ig(PathSteps{kind, 1, 1e-3, 5000});
      CAPTURE(refined.steps, refined.completeness_gap, change);
      CHECK(std::abs(refined.completeness_gap) <= 1e-3 * std::abs(change));
      int expected = 1;  // the first refinement within the bound: the coarser one was not
      while (expected < refined.steps) expected *= factor;
      CHECK(expected == refined.steps);
      const IntegratedGradients coarser = ig(PathSteps{kind, refined.steps / factor});
      CHECK(std::abs(coarser.completeness_gap) > 1e-3 * std::abs(change));
      // Reusing the coarser rules' gradients gives the finer rule's attributions.
      const IntegratedGradients direct = ig(PathSteps{kind, refined.steps});
      for (int64_t i = 0; i < direct.attribution.numel(); ++i)
        CHECK(refined.attribution[i] == Approx(direct.attribution[i]).margin(1e-6));
      // An unreachable bound stops at the cap: 1, 3, 9 (27 > 20) or 1, 2, 4, 8, 16.
      CHECK(ig(PathSteps{kind, 1, 1e-12, 20}).steps == (factor == 3 ? 9 : 16));
    }
  }
}

TEST_CASE("degree baseline: 1 / in-degree of the edge's destination", "[explain]") {
  NodeDataset d;  // a star 0 - {1, 2, 3} and an edge 3 - 4
  d.num_nodes = 5;
  d.edge_src = {0, 0, 0, 3};
  d.edge_dst = {1, 2, 3, 4};
  d.features = SparseMatrix::from_dense(Tensor({5, 1}, 1.0f));
  d.labels.assign(5, 0);
  d.num_classes = 1;
  const PreparedNodeData full = prepare_node_data(d, false);
  const ComputationGraph cg = computation_graph(full, 1, 2);
  const std::vector<float> scores = degree_edge_scores(cg);
  REQUIRE(scores.size() == cg.explained.size());
  for (std::size_t k = 0; k < scores.size(); ++k) {
    const int64_t dst = cg.nodes[cg.data.graph.plain().dst[cg.explained[k]]];
    CHECK(scores[k] == Approx(dst == 0 ? 1.0 / 3 : 1.0));  // node 0 has 3 neighbours, node 1 one
  }
}

TEST_CASE("explain_node: 1 and 2 threads give the same bits", "[explain]") {
  TinyNodeModel tiny("gat", 80, 140, 6, 3, 4);
  // Occlusion twice: one edge at a time, and with its reverse (symmetric).
  const std::vector<std::pair<ExplainMethod, bool>> methods = {
      {ExplainMethod::kAttention, false}, {ExplainMethod::kSaliency, false},
      {ExplainMethod::kIntegratedGradients, false}, {ExplainMethod::kGnnExplainer, false},
      {ExplainMethod::kOcclusion, false}, {ExplainMethod::kOcclusion, true}};
  for (const auto& [m, symmetric] : methods) {
    ExplainOptions o;
    o.method = m;
    o.symmetric = symmetric;
    o.steps = 8;
    std::vector<NodeExplanation> runs;
    for (int threads : {1, 2}) {
      ScopedThreads scoped(threads);
      runs.push_back(explain_node(tiny.model, tiny.data, 11, o));
    }
    CHECK(runs[0].edge_score == runs[1].edge_score);
    CHECK(runs[0].feature_score == runs[1].feature_score);
    CHECK(runs[0].value == runs[1].value);
    CHECK(runs[0].edge_id == runs[1].edge_id);
    CHECK((!runs[0].edge_score.empty() || !runs[0].feature_score.empty()));
  }
}

TEST_CASE("explain_node: attention needs attention layers, and classes are checked", "[explain]") {
  TinyNodeModel gcn("gcn", 30, 50, 3, 2, 6);
  ExplainOptions o;
  o.method = ExplainMethod::kAttention;
  CHECK_THROWS_AS(explain_node(gcn.model, gcn.data, 0, o), InputError);
  o.method = ExplainMethod::kSaliency;
  o.class_id = 2;
  CHECK_THROWS_AS(explain_node(gcn.model, gcn.data, 0, o), InputError);
  o.class_id = 1;
  const NodeExplanation e = explain_node(gcn.model, gcn.data, 0, o);
  CHECK(e.explained_class == 1);
  CHECK(e.feature_score.size() == 3);
}

TEST_CASE("faithfulness: keeping every scored item changes no prediction", "[explain]") {
  ScopedThreads threads(1);
  TinyNodeModel tiny("gcn", 50, 80, 4, 3, 12);
  ExplanationSet set;
  set.method = "saliency";
  set.num_features = 4;
  ExplainOptions o;
  o.method = ExplainMethod::kSaliency;
  for (int64_t node : {1, 8, 20, 33}) set.explanations.push_back(explain_node(tiny.model, tiny.data, node, o));
  // top-k beyond every node's edge and feature count: "only the explanation" is the input.
  const std::vector<FaithfulnessResult> all = evaluate_faithfulness(tiny.model, tiny.data, set, 1000);
  REQUIRE(all.size() == 2);
  CHECK(all[0].kind == "edges");
  CHECK(all[1].kind == "features");
  for (const FaithfulnessResult& r : all) {
    CHECK(r.targets == 4);
    CHECK(r.fidelity.minus == 0.0);
  }
}

TEST_CASE("attention method: rollout scores are products of the exported per-layer weights", "[explain]") {
  ScopedThreads threads(1);
  TinyNodeModel tiny("gat", 60, 100, 5, 3, 21);
  ExplainOptions o;
  o.method = ExplainMethod::kAttention;
  const int64_t target = 9;
  const NodeExplanation x = explain_node(tiny.model, tiny.data, target, o);
  REQUIRE(x.attention.size() == 2);
  const auto e_count = static_cast<int64_t>(x.edge_id.size());
  REQUIRE(e_count > 3);
  auto mean = [&](int layer, int64_t e) { return 0.5 * (x.attention[layer][2 * e] + x.attention[layer][2 * e + 1]); };
  // Two layers: edge i -> t carries w2(i -> t) (+ the flow of layer 1, r_1[t] w1); an edge
  // j -> i with i != t carries r_1[i] w1(j -> i) = w2(i -> t) w1(j -> i).
  std::map<int64_t, double> into_target;  // i -> w2(i -> t)
  for (int64_t e = 0; e < e_count; ++e) {
    if (x.edge_dst[e] == target) into_target[x.edge_src[e]] = mean(1, e);
  }
  int checked = 0;
  for (int64_t e = 0; e < e_count; ++e) {
    CHECK(x.attention[0].dim(1) == 2);
    if (x.edge_dst[e] == target) {
      CHECK(x.edge_score[e] >= mean(1, e) - 1e-6);
    } else {
      REQUIRE(into_target.count(x.edge_dst[e]));
      CHECK(x.edge_score[e] == Approx(into_target[x.edge_dst[e]] * mean(0, e)).margin(1e-6));
      ++checked;
    }
  }
  CHECK(checked > 0);
}
