#include <catch2/catch.hpp>

#include <cmath>
#include <map>

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
using attend::testing::featured_dataset;
using attend::testing::graph_registry;
using attend::testing::ScopedThreads;
using attend::testing::two_layer_model;

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

TEST_CASE("feature gradient of the explained quantity matches finite differences (gat, gcn, rgcn)", "[explain]") {
  ScopedThreads threads(1);
  for (const std::string layer : {"gat", "gcn", "rgcn"}) {
    CAPTURE(layer);
    const PreparedNodeData full = prepare_node_data(featured_dataset(40, 60, 4, 3, layer == "rgcn", 8), true);
    auto registry = graph_registry();
    NodeClassifier model(two_layer_model(layer, full), *registry);
    model.eval();
    const ComputationGraph cg = computation_graph(full, 5, 2);
    const Tensor x = dense_features(cg);
    const Tensor g = feature_gradient(model, TargetForward(model, cg, 1), x, 1).gradient;
    const double eps = 1e-3;
    auto f = [&](const Tensor& input) {
      NoGradGuard no_grad;
      return static_cast<double>(
          target_log_probability(model, NodeFeatures(Var(input)), cg.data.graph, {cg.target}, {1}).value().item());
    };
    int checked = 0;
    for (int64_t i = 0; i < x.numel(); i += 3) {
      Tensor up = x, down = x;
      up[i] += static_cast<float>(eps);
      down[i] -= static_cast<float>(eps);
      const double numeric = (f(up) - f(down)) / (2 * eps);
      CHECK(g[i] == Approx(numeric).margin(2e-3).epsilon(2e-2));
      checked += std::abs(numeric) > 1e-3;
    }
    CHECK(checked > 3);  // the check must see non-zero derivatives
  }
}

TEST_CASE("integrated gradients: completeness gap under 1 % at 50 steps of either rule (gat, gcn, rgcn)", "[explain]") {
  ScopedThreads threads(1);
  for (const std::string layer : {"gat", "gcn", "rgcn"}) {
    CAPTURE(layer);
    const PreparedNodeData full = prepare_node_data(featured_dataset(40, 60, 4, 3, layer == "rgcn", 9), true);
    auto registry = graph_registry();
    NodeClassifier model(two_layer_model(layer, full), *registry);
    model.eval();
    const ComputationGraph cg = computation_graph(full, 7, 2);
    TargetForwards passes(model, cg);
    for (const QuadratureKind kind : {QuadratureKind::kMidpoint, QuadratureKind::kGaussLegendre}) {
      CAPTURE(quadrature_name(kind));
      const IntegratedGradients ig = integrated_gradients_features(passes, 0, PathSteps{kind, 50});
      const double change = ig.value - ig.baseline_value;
      CAPTURE(ig.value, ig.baseline_value, ig.completeness_gap);
      REQUIRE(std::abs(change) > 1e-3);
      CHECK(std::abs(ig.completeness_gap) < 0.01 * std::abs(change));
      // One step is the gradient at x / 2 times x: a cruder rule with a visibly larger gap.
      const IntegratedGradients crude = integrated_gradients_features(passes, 0, PathSteps{kind, 1});
      CHECK(std::abs(crude.completeness_gap) > std::abs(ig.completeness_gap));
      // Batches of one step give the same attributions as all steps in one batch.
      const IntegratedGradients unbatched = integrated_gradients_features(passes, 0, PathSteps{kind, 50}, 1);
      for (int64_t i = 0; i < ig.attribution.numel(); ++i)
        CHECK(unbatched.attribution[i] == Approx(ig.attribution[i]).margin(1e-6));
    }
  }
}

TEST_CASE("integrated gradients with a gap bound: refined until the gap is within it or the cap stops it", "[explain]") {
  ScopedThreads threads(1);
  const PreparedNodeData full = prepare_node_data(featured_dataset(40, 60, 4, 3, false, 9), true);
  auto registry = graph_registry();
  NodeClassifier model(two_layer_model("gcn", full), *registry);
  model.eval();
  const ComputationGraph cg = computation_graph(full, 7, 2);
  TargetForwards passes(model, cg);
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
  const PreparedNodeData full = prepare_node_data(featured_dataset(80, 140, 6, 3, false, 4), true);
  auto registry = graph_registry();
  NodeClassifier model(two_layer_model("gat", full), *registry);
  for (ExplainMethod m : {ExplainMethod::kAttention, ExplainMethod::kSaliency, ExplainMethod::kIntegratedGradients,
                         ExplainMethod::kGnnExplainer}) {
    ExplainOptions o;
    o.method = m;
    o.steps = 8;
    std::vector<NodeExplanation> runs;
    for (int threads : {1, 2}) {
      ScopedThreads scoped(threads);
      runs.push_back(explain_node(model, full, 11, o));
    }
    CHECK(runs[0].edge_score == runs[1].edge_score);
    CHECK(runs[0].feature_score == runs[1].feature_score);
    CHECK(runs[0].value == runs[1].value);
    CHECK(runs[0].edge_id == runs[1].edge_id);
    CHECK((!runs[0].edge_score.empty() || !runs[0].feature_score.empty()));
  }
}

TEST_CASE("explain_node: attention needs attention layers, and classes are checked", "[explain]") {
  const PreparedNodeData full = prepare_node_data(featured_dataset(30, 50, 3, 2, false, 6), true);
  auto registry = graph_registry();
  NodeClassifier gcn(two_layer_model("gcn", full), *registry);
  ExplainOptions o;
  o.method = ExplainMethod::kAttention;
  CHECK_THROWS_AS(explain_node(gcn, full, 0, o), InputError);
  o.method = ExplainMethod::kSaliency;
  o.class_id = 2;
  CHECK_THROWS_AS(explain_node(gcn, full, 0, o), InputError);
  o.class_id = 1;
  const NodeExplanation e = explain_node(gcn, full, 0, o);
  CHECK(e.explained_class == 1);
  CHECK(e.feature_score.size() == 3);
}

TEST_CASE("edge-mask gradient of the explained quantity matches finite differences (gat, gcn, rgcn)", "[explain]") {
  ScopedThreads threads(1);
  for (const std::string layer : {"gat", "gcn", "rgcn"}) {
    CAPTURE(layer);
    const PreparedNodeData full = prepare_node_data(featured_dataset(40, 60, 4, 3, layer == "rgcn", 8), true);
    auto registry = graph_registry();
    NodeClassifier model(two_layer_model(layer, full), *registry);
    model.eval();
    const ComputationGraph cg = computation_graph(full, 5, 2);
    const int64_t e_count = cg.data.graph.plain().num_edges();
    const Tensor ones({e_count}, 1.0f);
    const Tensor g = edge_gradient(model, TargetForward(model, cg, 1), ones, 2).gradient;
    const double eps = 1e-3;
    auto f = [&](const Tensor& mask) {
      NoGradGuard no_grad;
      return static_cast<double>(target_log_probability(model, cg.data.features, cg.data.graph.with_edge_mask(Var(mask)),
                                                        {cg.target}, {2})
                                     .value()
                                     .item());
    };
    int checked = 0;
    for (int64_t e = 0; e < e_count; ++e) {
      Tensor up = ones, down = ones;
      up[e] += static_cast<float>(eps);
      down[e] -= static_cast<float>(eps);
      const double numeric = (f(up) - f(down)) / (2 * eps);
      CHECK(g[e] == Approx(numeric).margin(2e-3).epsilon(2e-2));
      checked += std::abs(numeric) > 1e-3;
    }
    CHECK(checked > 3);
  }
}

TEST_CASE("integrated gradients on edges: completeness gap under 1 % at 50 steps of either rule (gat, gcn, rgcn)", "[explain]") {
  ScopedThreads threads(1);
  for (const std::string layer : {"gat", "gcn", "rgcn"}) {
    CAPTURE(layer);
    const PreparedNodeData full = prepare_node_data(featured_dataset(40, 60, 4, 3, layer == "rgcn", 9), true);
    auto registry = graph_registry();
    NodeClassifier model(two_layer_model(layer, full), *registry);
    model.eval();
    const ComputationGraph cg = computation_graph(full, 7, 2);
    TargetForwards passes(model, cg);
    for (const QuadratureKind kind : {QuadratureKind::kMidpoint, QuadratureKind::kGaussLegendre}) {
      CAPTURE(quadrature_name(kind));
      const IntegratedGradients ig = integrated_gradients_edges(passes, 0, PathSteps{kind, 50});
      const double change = ig.value - ig.baseline_value;
      CAPTURE(ig.value, ig.baseline_value, ig.completeness_gap);
      REQUIRE(std::abs(change) > 1e-3);
      CHECK(std::abs(ig.completeness_gap) < 0.01 * std::abs(change));
      const IntegratedGradients unbatched = integrated_gradients_edges(passes, 0, PathSteps{kind, 50}, 1);
      for (int64_t e = 0; e < ig.attribution.numel(); ++e)
        CHECK(unbatched.attribution[e] == Approx(ig.attribution[e]).margin(1e-6));
      // Edges that carry no message to the target get nothing.
      for (int64_t e = 0; e < ig.attribution.numel(); ++e) {
        if (cg.distance[cg.data.graph.plain().dst[e]] >= 2) CHECK(ig.attribution[e] == 0.0f);
      }
    }
  }
}

TEST_CASE("faithfulness: keeping every scored item changes no prediction", "[explain]") {
  ScopedThreads threads(1);
  const PreparedNodeData full = prepare_node_data(featured_dataset(50, 80, 4, 3, false, 12), true);
  auto registry = graph_registry();
  NodeClassifier model(two_layer_model("gcn", full), *registry);
  ExplanationSet set;
  set.method = "saliency";
  set.num_features = 4;
  ExplainOptions o;
  o.method = ExplainMethod::kSaliency;
  for (int64_t node : {1, 8, 20, 33}) set.explanations.push_back(explain_node(model, full, node, o));
  // top-k beyond every node's edge and feature count: "only the explanation" is the input.
  const std::vector<FaithfulnessResult> all = evaluate_faithfulness(model, full, set, 1000);
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
  const PreparedNodeData full = prepare_node_data(featured_dataset(60, 100, 5, 3, false, 21), true);
  auto registry = graph_registry();
  NodeClassifier model(two_layer_model("gat", full), *registry);
  ExplainOptions o;
  o.method = ExplainMethod::kAttention;
  const int64_t target = 9;
  const NodeExplanation x = explain_node(model, full, target, o);
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
