// GNNExplainer (graph/explain/gnn_explainer.hpp): its penalty against finite differences, a
// hand-built model whose prediction depends on one edge only, determinism and threads.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "attend/core/error.hpp"
#include "attend/graph/explain/computation_graph.hpp"
#include "attend/graph/explain/explained_quantity.hpp"
#include "attend/graph/explain/gnn_explainer.hpp"
#include "explain_models.hpp"
#include "scoped_threads.hpp"

using namespace attend;
using namespace attend::graph;
using attend::testing::check_gradients;
using attend::testing::graph_registry;
using attend::testing::one_signal_model;
using attend::testing::random_tensor;
using attend::testing::ScopedThreads;
using attend::testing::TinyNodeModel;

TEST_CASE("GNNExplainer's mask penalty: value by hand and gradient by finite differences", "[explain][grad]") {
  const Tensor p({4}, std::vector<float>{-1.0f, 0.5f, 2.0f, 0.0f});
  const std::vector<int64_t> hard{0, 1, 3};  // entry 2 is outside the hard mask
  double size_sum = 0.0, entropy = 0.0;
  for (int64_t i : hard) {
    const double m = 1.0 / (1.0 + std::exp(-double(p[i])));
    size_sum += m;
    entropy += -m * std::log(m) - (1 - m) * std::log(1 - m);
  }
  CHECK(mask_penalty(Var(p), hard, 0.005, true, 1.0, 1e-15).value().item() ==
        Approx(0.005 * size_sum + entropy / 3).epsilon(1e-6));
  CHECK(mask_penalty(Var(p), hard, 1.0, false, 0.1, 1e-15).value().item() ==
        Approx(size_sum / 3 + 0.1 * entropy / 3).epsilon(1e-6));
  CHECK(mask_penalty(Var(p), {}, 1.0, false, 0.1, 1e-15).value().item() == 0.0f);
  for (bool sum_over : {true, false}) {
    auto r = check_gradients(
        [&](const std::vector<Var>& v) { return mask_penalty(v[0], hard, 0.3, sum_over, 1.0, 1e-15); },
        {random_tensor({4}, 3, -2.0f, 2.0f)});
    INFO(r.report);
    CHECK(r.ok);
  }
}

namespace {

/// A star with a tail, undirected: node 0 (the target) has neighbours 1, 2, 3; node 2 has
/// neighbour 4, node 1 has neighbour 5. Node 1 has feature 0 only, every other node feature 1
/// only.
PreparedNodeData one_signal_graph() {
  NodeDataset d;
  d.num_nodes = 6;
  d.edge_src = {1, 2, 3, 4, 5};
  d.edge_dst = {0, 0, 0, 2, 1};
  d.labels.assign(6, 0);
  d.num_classes = 2;
  d.features = SparseMatrix::from_triplets(6, 2, {0, 1, 2, 3, 4, 5}, {1, 0, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1});
  return prepare_node_data(std::move(d), false);
}

}  // namespace

TEST_CASE("GNNExplainer ranks first the one edge that carries the prediction", "[explain]") {
  const auto registry = graph_registry();
  const PreparedNodeData data = one_signal_graph();
  auto model = one_signal_model(*registry);
  const ComputationGraph cg = computation_graph(data, 0, 2);
  REQUIRE(predicted_class(*model, cg.data, cg.target) == 1);
  const GnnExplanation e = gnn_explainer(*model, data, cg, 1);
  CHECK(e.node == 0);
  REQUIRE(e.edge_score.size() == e.edge_id.size());
  REQUIRE(!e.edge_score.empty());
  const auto best = std::max_element(e.edge_score.begin(), e.edge_score.end()) - e.edge_score.begin();
  INFO("edges and scores:");
  for (std::size_t k = 0; k < e.edge_id.size(); ++k) INFO(e.edge_src[k] << " -> " << e.edge_dst[k] << ": " << e.edge_score[k]);
  CHECK(e.edge_src[best] == 1);
  CHECK(e.edge_dst[best] == 0);
  // The edges that bring only class-0 evidence end well below it; the feature mask prefers
  // feature 0 (class 1 evidence) to feature 1.
  for (std::size_t k = 0; k < e.edge_id.size(); ++k) {
    if (e.edge_dst[k] == 0 && (e.edge_src[k] == 2 || e.edge_src[k] == 3)) CHECK(e.edge_score[k] < e.edge_score[best] - 0.1f);
  }
  REQUIRE(e.feature_score.size() == 2);
  CHECK(e.feature_score[0] > e.feature_score[1]);
}

TEST_CASE("GNNExplainer is deterministic for a seed, independent of batching, and equal on 1 and 2 threads",
          "[explain]") {
  TinyNodeModel tiny("gat", 300, 900, 12, 3, 51);
  NodeClassifier& model = tiny.model;
  GnnExplainerOptions options;
  options.epochs = 30;
  options.seed = 9;
  const std::vector<int64_t> nodes{4, 77, 150};
  auto run = [&](int threads, const std::vector<int64_t>& which) {
    ScopedThreads scoped(threads);
    return gnn_explain_nodes(model, tiny.data, which, {}, options);
  };
  const auto one = run(1, nodes), two = run(2, nodes), again = run(1, nodes);
  const auto alone = run(2, {nodes[1]});
  auto same = [](const GnnExplanation& a, const GnnExplanation& b) {
    return a.edge_id == b.edge_id && a.edge_score == b.edge_score && a.feature_score == b.feature_score &&
           a.explained_class == b.explained_class;
  };
  for (std::size_t t = 0; t < nodes.size(); ++t) {
    CAPTURE(nodes[t]);
    CHECK(same(one[t], two[t]));
    CHECK(same(one[t], again[t]));
    CHECK(!one[t].edge_score.empty());
  }
  CHECK(same(one[1], alone[0]));
  options.seed = 10;
  ScopedThreads scoped(1);
  const auto other = gnn_explain_nodes(model, tiny.data, nodes, {}, options);
  CHECK_FALSE(same(one[0], other[0]));
  // The model's parameters got no gradient and still require one.
  for (const auto& [name, p] : model.named_parameters()) {
    CAPTURE(name);
    CHECK(p.requires_grad());
    CHECK_FALSE(p.has_grad());
  }
}

TEST_CASE("GNNExplainer's initial mask: every edge starts at it, on 1 and 2 threads alike, and a bad one is refused",
          "[explain]") {
  const auto registry = graph_registry();
  const PreparedNodeData data = one_signal_graph();
  auto model = one_signal_model(*registry);
  const ComputationGraph cg = computation_graph(data, 0, 2);
  // One Adam step of lr 1e-7 moves a logit by at most about 1e-7: the mask returned is the start.
  GnnExplainerOptions first;
  first.epochs = 1;
  first.lr = 1e-7;
  const GnnExplanation random_start = gnn_explainer(*model, data, cg, 1, first);
  for (double m0 : {0.9, 0.2}) {
    CAPTURE(m0);
    first.initial_mask = m0;
    const GnnExplanation e = gnn_explainer(*model, data, cg, 1, first);
    REQUIRE(e.edge_score.size() == random_start.edge_score.size());
    int64_t started = 0;
    for (float m : e.edge_score) {
      if (m == 0.0f) continue;  // outside the hard mask: set to 0 as PyG's post-processing
      CHECK(m == Approx(m0).margin(1e-5));
      ++started;
    }
    CHECK(started >= 3);  // the target's three in-edges carry gradient
    CHECK(e.feature_score == random_start.feature_score);  // the feature logits' draws are unchanged
  }
  // PyG's random start differs from edge to edge.
  std::vector<float> hard;
  for (float m : random_start.edge_score) {
    if (m != 0.0f) hard.push_back(m);
  }
  REQUIRE(hard.size() >= 2);
  CHECK(*std::min_element(hard.begin(), hard.end()) < *std::max_element(hard.begin(), hard.end()));

  TinyNodeModel tiny("gat", 300, 900, 12, 3, 51);
  GnnExplainerOptions options;
  options.epochs = 20;
  options.initial_mask = 0.9;
  const std::vector<int64_t> nodes{4, 77};
  auto run = [&](int threads) {
    ScopedThreads scoped(threads);
    return gnn_explain_nodes(tiny.model, tiny.data, nodes, {}, options);
  };
  const auto one = run(1), two = run(2);
  for (std::size_t t = 0; t < nodes.size(); ++t) {
    CHECK(one[t].edge_score == two[t].edge_score);
    CHECK(one[t].feature_score == two[t].feature_score);
  }
  for (double bad : {1.0, -0.1, 1.5}) {
    first.initial_mask = bad;
    CHECK_THROWS_AS(gnn_explainer(*model, data, cg, 1, first), Error);
  }
}
