// Shapley sampling (graph/explain/shapley_sampling.hpp) against brute force: over all n!
// orders of a few players it must equal the subset formula with v from plain whole-graph
// forwards; sampled scores keep efficiency; threads, batches and seeds behave.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string>
#include <tuple>

#include "attend/core/error.hpp"
#include "attend/core/ops/softmax.hpp"
#include "attend/graph/explain/computation_graph.hpp"
#include "attend/graph/explain/node_explanation.hpp"
#include "attend/graph/explain/shapley_sampling.hpp"
#include "edge_direction_pairs.hpp"
#include "explain_models.hpp"
#include "scoped_threads.hpp"

using namespace attend;
using namespace attend::graph;
using attend::testing::ScopedThreads;
using attend::testing::check_directions_share_score;
using attend::testing::TinyNodeModel;

namespace {

constexpr int64_t kTarget = 7, kClass = 1;

/// log softmax(model(x, graph))[target, cls] on the whole graph.
double whole_graph_f(const NodeClassifier& model, const NodeFeatures& x, const GraphContext& graph, int64_t target,
                     int64_t cls) {
  NoGradGuard no_grad;
  const Tensor log_p = ops::log_softmax(model.forward(x, graph, 0)).value();  // [N, C]
  return log_p[target * log_p.dim(1) + cls];
}

/// Every order of 0 .. n - 1.
std::vector<std::vector<int64_t>> all_orders(int64_t n) {
  std::vector<int64_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), int64_t{0});
  std::vector<std::vector<int64_t>> out;
  do {
    out.push_back(order);
  } while (std::next_permutation(order.begin(), order.end()));
  return out;
}

/// phi_i = sum over S without i of |S|! (n - |S| - 1)! / n! (v(S + i) - v(S)), v given on
/// every subset as a bit mask.
std::vector<double> subset_formula(int64_t n, const std::vector<double>& v) {
  auto factorial = [](int64_t k) {
    double f = 1.0;
    for (int64_t i = 2; i <= k; ++i) f *= static_cast<double>(i);
    return f;
  };
  std::vector<double> phi(static_cast<std::size_t>(n), 0.0);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t s = 0; s < (int64_t{1} << n); ++s) {
      if (s & (int64_t{1} << i)) continue;
      const int64_t size = __builtin_popcountll(static_cast<unsigned long long>(s));
      const double weight = factorial(size) * factorial(n - size - 1) / factorial(n);
      phi[static_cast<std::size_t>(i)] += weight * (v[static_cast<std::size_t>(s | (int64_t{1} << i))] - v[static_cast<std::size_t>(s)]);
    }
  }
  return phi;
}

/// The players of `edges` as the test sees them: full-graph plain edge ids of each group (the
/// edge, or with `symmetric` every edge of the whole graph joining its endpoints with its
/// relation), in the order the groups first appear.
std::vector<std::vector<int64_t>> player_edges(const ComputationGraph& cg, const GraphView& plain,
                                               const std::vector<int64_t>& edges, bool symmetric) {
  std::vector<std::vector<int64_t>> players;
  std::map<std::tuple<int64_t, int64_t, int64_t>, std::size_t> seen;
  for (int64_t local : edges) {
    const int64_t id = cg.plain_edge[local];
    const auto key = std::make_tuple(std::min(plain.src[id], plain.dst[id]), std::max(plain.src[id], plain.dst[id]),
                                     plain.relation[id]);
    if (!symmetric) {
      players.push_back({id});
      continue;
    }
    if (!seen.emplace(key, players.size()).second) continue;
    std::vector<int64_t>& group = players.emplace_back();
    for (int64_t e = 0; e < plain.num_edges(); ++e) {
      const auto other = std::make_tuple(std::min(plain.src[e], plain.dst[e]), std::max(plain.src[e], plain.dst[e]),
                                         plain.relation[e]);
      if (other == key) group.push_back(e);
    }
  }
  return players;
}

/// Up to `count` explained edges, those into the target first (they move f most).
std::vector<int64_t> some_explained_edges(const ComputationGraph& cg, std::size_t count) {
  const GraphView& local = cg.data.graph.plain();
  std::vector<int64_t> edges;
  for (int64_t e : cg.explained) {
    if (local.dst[e] == cg.target && edges.size() < count) edges.push_back(e);
  }
  for (int64_t e : cg.explained) {
    if (local.dst[e] != cg.target && edges.size() < count) edges.push_back(e);
  }
  return edges;
}

}  // namespace

TEST_CASE("shapley over every order of a few edges equals the subset formula on whole-graph masked forwards",
          "[explain][shapley]") {
  ScopedThreads threads(1);
  for (const std::string layer : {"gat", "gcn", "rgcn"}) {
    for (const bool symmetric : {false, true}) {
      CAPTURE(layer, symmetric);
      TinyNodeModel tiny(layer, 40, 70, 4, 3, 31);
      const ComputationGraph cg = computation_graph(tiny.data, kTarget, 2);
      const GraphView& plain = tiny.data.graph.plain();
      const std::vector<int64_t> edges = some_explained_edges(cg, 5);
      const std::vector<std::vector<int64_t>> players = player_edges(cg, plain, edges, symmetric);
      const auto n = static_cast<int64_t>(players.size());
      REQUIRE(n >= 3);
      REQUIRE(n <= 5);
      std::vector<double> v;  // v(S) for every subset S of the players
      for (int64_t s = 0; s < (int64_t{1} << n); ++s) {
        Tensor mask({plain.num_edges()}, 1.0f);  // [E] of the whole graph
        for (int64_t i = 0; i < n; ++i) {
          if (s & (int64_t{1} << i)) continue;
          for (int64_t e : players[static_cast<std::size_t>(i)]) mask[e] = 0.0f;
        }
        v.push_back(whole_graph_f(tiny.model, tiny.data.features, tiny.data.graph.with_edge_mask(Var(mask)), kTarget,
                                  kClass));
      }
      const std::vector<double> exact = subset_formula(n, v);
      TargetForwards passes(tiny.model, cg);
      const ShapleyAttribution shapley = shapley_edges(passes, kClass, edges, symmetric, all_orders(n));
      REQUIRE(shapley.score.size() == edges.size());
      const std::vector<std::vector<int64_t>> groups = player_edges(cg, plain, edges, symmetric);
      int moved = 0;
      for (std::size_t k = 0; k < edges.size(); ++k) {
        // the player of edge k: the group holding its full-graph id
        const int64_t id = cg.plain_edge[edges[k]];
        std::size_t player = 0;
        while (std::find(groups[player].begin(), groups[player].end(), id) == groups[player].end()) ++player;
        CAPTURE(k, player);
        CHECK(shapley.score[k] == Approx(exact[player]).margin(1e-5));
        moved += std::abs(exact[player]) > 1e-3;
      }
      CHECK(moved >= 2);
      CHECK(shapley.baseline_value == Approx(v.front()).margin(1e-5));
      CHECK(std::abs(shapley.efficiency_gap) < 1e-5);
    }
  }
}

TEST_CASE("shapley over every order of the feature columns equals the subset formula", "[explain][shapley]") {
  ScopedThreads threads(1);
  for (const std::string layer : {"gat", "gcn"}) {
    CAPTURE(layer);
    TinyNodeModel tiny(layer, 40, 70, 4, 3, 32);
    const ComputationGraph cg = computation_graph(tiny.data, kTarget, 2);
    const Tensor x = to_dense(tiny.data.features);  // [N, F]
    const int64_t f_count = x.dim(1);
    std::vector<double> v;
    for (int64_t s = 0; s < (int64_t{1} << f_count); ++s) {
      Tensor kept = x;  // the columns of S
      for (int64_t r = 0; r < x.dim(0); ++r) {
        for (int64_t f = 0; f < f_count; ++f) {
          if (!(s & (int64_t{1} << f))) kept[r * f_count + f] = 0.0f;
        }
      }
      v.push_back(whole_graph_f(tiny.model, NodeFeatures(Var(kept)), tiny.data.graph, kTarget, kClass));
    }
    const std::vector<double> exact = subset_formula(f_count, v);
    TargetForwards passes(tiny.model, cg);
    const ShapleyAttribution shapley = shapley_features(passes, kClass, all_orders(f_count));
    REQUIRE(static_cast<int64_t>(shapley.score.size()) == f_count);
    for (int64_t f = 0; f < f_count; ++f) {
      CAPTURE(f);
      CHECK(shapley.score[static_cast<std::size_t>(f)] == Approx(exact[static_cast<std::size_t>(f)]).margin(1e-5));
      CHECK(std::abs(exact[static_cast<std::size_t>(f)]) > 1e-4);
    }
    CHECK(std::abs(shapley.efficiency_gap) < 1e-5);
  }
}

TEST_CASE("sampled shapley scores of every explained edge sum to v(all) - v(none)", "[explain][shapley]") {
  ScopedThreads threads(1);
  TinyNodeModel tiny("gcn", 40, 70, 4, 3, 33);
  const ComputationGraph cg = computation_graph(tiny.data, kTarget, 2);
  const GraphView& plain = tiny.data.graph.plain();
  REQUIRE(cg.explained.size() > 8);
  Tensor none({plain.num_edges()}, 1.0f);  // [E]: the explained edges 0
  for (int64_t e : cg.explained) none[cg.plain_edge[e]] = 0.0f;
  const double all = whole_graph_f(tiny.model, tiny.data.features, tiny.data.graph, kTarget, kClass);
  const double empty = whole_graph_f(tiny.model, tiny.data.features, tiny.data.graph.with_edge_mask(Var(none)), kTarget, kClass);
  REQUIRE(std::abs(all - empty) > 1e-2);
  TargetForwards passes(tiny.model, cg);
  for (const bool symmetric : {false, true}) {
    CAPTURE(symmetric);
    const ShapleyAttribution shapley = shapley_edges(passes, kClass, cg.explained, symmetric, 6, 5);
    // The sum over players: a symmetric group's score once.
    std::map<std::tuple<int64_t, int64_t>, float> per_player;
    double sum = 0.0;
    for (std::size_t k = 0; k < cg.explained.size(); ++k) {
      const int64_t id = cg.plain_edge[cg.explained[k]];
      if (!symmetric) {
        sum += shapley.score[k];
        continue;
      }
      per_player[{std::min(plain.src[id], plain.dst[id]), std::max(plain.src[id], plain.dst[id])}] = shapley.score[k];
    }
    for (const auto& [pair, score] : per_player) sum += score;
    CHECK(sum == Approx(all - empty).margin(1e-5));
    CHECK(shapley.baseline_value == Approx(empty).margin(1e-5));
    CHECK(std::abs(shapley.efficiency_gap) < 1e-5);
  }
}

TEST_CASE("shapley: the same bits on 1 and 2 threads and for the same seed, other scores for another seed",
          "[explain][shapley]") {
  TinyNodeModel tiny("gat", 40, 70, 4, 3, 34);
  ExplainOptions o;
  o.method = ExplainMethod::kShapley;
  o.samples = 4;
  o.seed = 3;
  NodeExplanation one, two, again, other;
  {
    ScopedThreads threads(1);
    one = explain_node(tiny.model, tiny.data, kTarget, o);
    again = explain_node(tiny.model, tiny.data, kTarget, o);
    o.seed = 4;
    other = explain_node(tiny.model, tiny.data, kTarget, o);
    o.seed = 3;
  }
  {
    ScopedThreads threads(2);
    two = explain_node(tiny.model, tiny.data, kTarget, o);
  }
  REQUIRE(one.edge_score.size() > 8);
  CHECK(one.edge_score == two.edge_score);
  CHECK(one.feature_score == two.feature_score);
  CHECK(one.edge_completeness_gap == two.edge_completeness_gap);
  CHECK(one.edge_score == again.edge_score);
  CHECK(one.feature_score == again.feature_score);
  CHECK(one.edge_score != other.edge_score);
  CHECK(one.feature_score != other.feature_score);
}

TEST_CASE("shapley: one copy per pass, several, or all in one give the same scores", "[explain][shapley]") {
  ScopedThreads threads(1);
  TinyNodeModel tiny("gcn", 40, 70, 4, 3, 35);
  const ComputationGraph cg = computation_graph(tiny.data, kTarget, 2);
  TargetForwards passes(tiny.model, cg);
  const int64_t per_copy = cg.num_nodes() + cg.data.graph.plain().num_edges();
  const ShapleyAttribution all = shapley_edges(passes, kClass, cg.explained, false, 2, 9);
  const ShapleyAttribution features = shapley_features(passes, kClass, 4, 9);
  for (const int64_t copies : {1, 3}) {
    CAPTURE(copies);
    const ShapleyAttribution batched = shapley_edges(passes, kClass, cg.explained, false, 2, 9, copies * per_copy);
    REQUIRE(batched.score.size() == all.score.size());
    for (std::size_t k = 0; k < all.score.size(); ++k) CHECK(batched.score[k] == Approx(all.score[k]).margin(1e-6));
    const ShapleyAttribution columns = shapley_features(passes, kClass, 4, 9, copies * cg.num_nodes() * 4);
    for (std::size_t f = 0; f < features.score.size(); ++f) CHECK(columns.score[f] == Approx(features.score[f]).margin(1e-6));
  }
}

TEST_CASE("shapley: symmetric gives both directions of an edge one score", "[explain][shapley]") {
  ScopedThreads threads(1);
  TinyNodeModel tiny("gcn", 40, 70, 4, 3, 36);
  ExplainOptions o;
  o.method = ExplainMethod::kShapley;
  o.symmetric = true;
  o.samples = 2;
  const NodeExplanation x = explain_node(tiny.model, tiny.data, kTarget, o);
  CHECK(check_directions_share_score(x) > 2);
  CHECK(std::abs(x.edge_completeness_gap) < 1e-5);
  CHECK(x.value - x.edge_baseline_value != 0.0);
}

TEST_CASE("antithetic permutations: orders of every player, each followed by its reverse", "[explain][shapley]") {
  const std::vector<std::vector<int64_t>> orders = antithetic_permutations(7, 6, 1);
  REQUIRE(orders.size() == 6);
  for (std::size_t p = 0; p < orders.size(); p += 2) {
    std::vector<int64_t> sorted = orders[p];
    std::sort(sorted.begin(), sorted.end());
    CHECK(sorted == std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6});
    CHECK(std::equal(orders[p].begin(), orders[p].end(), orders[p + 1].rbegin()));
  }
  CHECK(orders[0] != orders[2]);
  CHECK(antithetic_permutations(7, 6, 1) == orders);
  CHECK(antithetic_permutations(7, 6, 2) != orders);
  CHECK_THROWS_AS(antithetic_permutations(7, 3, 1), Error);
  CHECK_THROWS_AS(antithetic_permutations(7, 0, 1), Error);
  CHECK(explain_method_from_name("shapley") == ExplainMethod::kShapley);
}
