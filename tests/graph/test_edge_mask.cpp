// GraphContext::with_edge_mask: every built-in node layer scales each edge's message by the
// mask (PyTorch Geometric's explain mode), without code of its own; graphormer refuses.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "attend/core/error.hpp"
#include "attend/core/ops/reduction.hpp"
#include "attend/core/ops/sparse_matmul.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/random.hpp"
#include "attend/core/registry.hpp"
#include "attend/graph/builtin_layers.hpp"
#include "attend/graph/graph_context.hpp"
#include "attend/graph/node_classifier.hpp"
#include "attend/graph/node_layer.hpp"
#include "grad_check.hpp"
#include "random_graphs.hpp"
#include "parameter_by_name.hpp"

using namespace attend;
using namespace attend::graph;
using attend::testing::check_gradients;
using attend::testing::parameter;
using attend::testing::check_module_gradients;
using attend::testing::GradCheckOptions;
using attend::testing::random_dataset;
using attend::testing::random_tensor;
using attend::testing::random_typed_dataset;

namespace {

/// One layer under test: its registry name, its config and the graph it runs on.
struct LayerCase {
  std::string label, type;
  Json config;
  bool typed = false;          ///< a directed graph with relations
  bool edge_features = false;  ///< the graph carries edge features [E, 3]
};

constexpr int64_t kIn = 5;

std::vector<LayerCase> layer_cases(int64_t relations) {
  const Json base = {{"in_channels", kIn}, {"out_channels", 4}, {"seed", 7}};
  auto with = [&](Json extra) {
    Json c = base;
    c.update(extra);
    return c;
  };
  return {
      {"gat", "gat", with({{"heads", 2}}), false, false},
      {"gatv2", "gatv2", with({{"heads", 2}}), false, false},
      {"gcn", "gcn", base, false, false},
      {"gcn without normalisation or self-loops", "gcn", with({{"normalize", false}, {"add_self_loops", false}}), false, false},
      {"graph_transformer with edge features", "graph_transformer", with({{"heads", 2}, {"edge_dim", 3}}), false, true},
      {"rgcn", "rgcn", with({{"num_relations", relations}, {"num_bases", 2}}), true, false},
      {"rgat across-relation", "rgat", with({{"num_relations", relations}, {"heads", 2}}), true, false},
      {"rgat within-relation", "rgat",
       with({{"num_relations", relations}, {"heads", 2}, {"attention_mechanism", "within-relation"}}), true, false},
  };
}

/// A graph for `c`: 16 nodes, an undirected or a typed one (3 relations, so 7 in the views).
GraphContext graph_for(const LayerCase& c) {
  GraphContext g = GraphContext::from_dataset(c.typed ? random_typed_dataset(16, 40, 3, 11) : random_dataset(16, 40, 11));
  if (c.edge_features) g.set_edge_features(random_tensor({g.plain().num_edges(), 3}, 12));
  return g;
}
constexpr int64_t kTypedRelations = 7;  // 3 relations, their inverses and the self-loops

std::unique_ptr<NodeLayer> make_layer(const Registry& registry, const LayerCase& c) {
  std::unique_ptr<Module> m = registry.create(c.type, c.config);
  auto* layer = dynamic_cast<NodeLayer*>(m.get());
  REQUIRE(layer != nullptr);
  m.release();
  auto out = std::unique_ptr<NodeLayer>(layer);
  out->eval();
  return out;
}

Registry graph_registry() {
  Registry registry;
  register_graph_layers(registry);
  return registry;
}

}  // namespace

TEST_CASE("an all-ones edge mask gives every layer its unmasked output, bit for bit", "[graph]") {
  const Registry registry = graph_registry();
  for (const LayerCase& c : layer_cases(kTypedRelations)) {
    INFO(c.label);
    const GraphContext g = graph_for(c);
    const auto layer = make_layer(registry, c);
    const NodeFeatures x(Var(random_tensor({g.num_nodes(), kIn}, 13)));
    const Tensor plain = layer->forward(x, g, 0).value();
    const GraphContext ones = g.with_edge_mask(Var(Tensor({g.plain().num_edges()}, 1.0f)));
    CHECK(ones.has_edge_mask());
    CHECK_FALSE(g.has_edge_mask());
    CHECK(bitwise_equal(layer->forward(x, ones, 0).value(), plain));
    // A mask that is not all ones changes the output (the mask does reach the layer).
    const GraphContext half = g.with_edge_mask(Var(Tensor({g.plain().num_edges()}, 0.5f)));
    CHECK(max_abs_diff(layer->forward(x, half, 0).value(), plain) > 1e-3f);
  }
}

TEST_CASE("edge mask gradients by finite differences, and the layers' own gradients under a mask",
          "[graph][grad]") {
  const Registry registry = graph_registry();
  GradCheckOptions gc;
  gc.max_checks = 30;
  for (const LayerCase& c : layer_cases(kTypedRelations)) {
    INFO(c.label);
    const GraphContext g = graph_for(c);
    const auto layer = make_layer(registry, c);
    const Tensor x = random_tensor({g.num_nodes(), kIn}, 14);
    const Tensor mask = random_tensor({g.plain().num_edges()}, 15, 0.1f, 1.0f);
    auto on_mask = check_gradients(
        [&](const std::vector<Var>& v) { return layer->forward(NodeFeatures(Var(x)), g.with_edge_mask(v[0]), 0); },
        {mask}, gc);
    INFO(on_mask.report);
    CHECK(on_mask.ok);
    const GraphContext masked = g.with_edge_mask(Var(mask));
    auto on_x = check_gradients(
        [&](const std::vector<Var>& v) { return layer->forward(NodeFeatures(v[0]), masked, 0); }, {x}, gc);
    INFO(on_x.report);
    CHECK(on_x.ok);
    // A smaller step for the parameters: with eps 1e-2 some gat / gatv2 scores cross the
    // LeakyReLU kink (with or without a mask).
    GradCheckOptions fine = gc;
    fine.eps = 2e-3f;
    auto on_params =
        check_module_gradients(*layer, [&] { return layer->forward(NodeFeatures(Var(x)), masked, 0); }, fine);
    INFO(on_params.report);
    CHECK(on_params.ok);
  }
}

TEST_CASE("a model with an edge mask is bit-identical for 1 and 2 threads, mask gradient included", "[graph]") {
  const Registry registry = graph_registry();
  for (const LayerCase& c : layer_cases(kTypedRelations)) {
    INFO(c.label);
    GraphContext g = GraphContext::from_dataset(c.typed ? random_typed_dataset(2000, 8000, 3, 21)
                                                        : random_dataset(2000, 8000, 21));
    if (c.edge_features) g.set_edge_features(random_tensor({g.plain().num_edges(), 3}, 22));
    Json second = c.config;
    second["in_channels"] = make_layer(registry, c)->out_features();
    const Json model = {{"layers", {{{"type", c.type}, {"config", c.config}}, {{"type", c.type}, {"config", second}}}}};
    const Tensor x = random_tensor({2000, kIn}, 23);
    const Tensor mask = random_tensor({g.plain().num_edges()}, 24, 0.0f, 1.0f);
    const NodeClassifier classifier(model, registry);
    const int64_t out = make_layer(registry, c)->out_features();
    const Tensor seed_grad = random_tensor({2000, out}, 25);
    auto run = [&](int threads) {
      const int before = num_threads();
      set_num_threads(threads);
      Var m(mask, true);
      Var y = classifier.forward(NodeFeatures(Var(x)), g.with_edge_mask(m), 42);
      y.backward(seed_grad);
      std::vector<Tensor> all{y.value(), m.grad()};
      for (const auto& [name, p] : classifier.named_parameters()) {
        all.push_back(p.grad());
        p.zero_grad();
      }
      set_num_threads(before);
      return all;
    };
    const auto one = run(1), two = run(2);
    for (std::size_t i = 0; i < one.size(); ++i) {
      INFO("tensor " << i);
      CHECK(bitwise_equal(one[i], two[i]));
    }
  }
}

namespace {
/// For each edge of `view` (a view of `g`), the plain edge it comes from, -1 for an added
/// self-loop. The test graphs are undirected, so (source, destination) names a plain edge.
std::vector<int64_t> plain_edge_of(const GraphContext& g, const GraphView& view) {
  std::vector<int64_t> from(view.num_edges(), -1);
  for (int64_t e = 0; e < view.num_edges(); ++e) {
    for (int64_t p = 0; p < g.plain().num_edges(); ++p) {
      if (g.plain().src[p] == view.src[e] && g.plain().dst[p] == view.dst[e] && view.src[e] != view.dst[e]) from[e] = p;
    }
  }
  return from;
}

}  // namespace

TEST_CASE("a zero mask entry removes that edge's message: gat and gcn against plain references", "[graph]") {
  const Registry registry = graph_registry();
  const GraphContext g = GraphContext::from_dataset(random_dataset(12, 30, 31));
  const int64_t n = g.num_nodes(), n_edges = g.plain().num_edges();
  const Tensor x = random_tensor({n, kIn}, 32);
  // A mask with zeros on every third edge and other values elsewhere.
  Tensor mask = random_tensor({n_edges}, 33, 0.2f, 1.0f);
  for (int64_t e = 0; e < n_edges; e += 3) mask[e] = 0.0f;
  const GraphView& looped = g.looped();
  const std::vector<int64_t> from = plain_edge_of(g, looped);
  auto mask_of = [&](int64_t e) { return from[e] < 0 ? 1.0 : double(mask[from[e]]); };  // looped edge e

  SECTION("gat: out_i = sum_j alpha_ij m_ij W x_j, alpha the unmasked softmax") {
    const auto layer = make_layer(registry, {"gat", "gat", {{"in_channels", kIn}, {"out_channels", 3}, {"seed", 2}}});
    const Tensor w = parameter(*layer, "weight"), a_src = parameter(*layer, "att_src"), a_dst = parameter(*layer, "att_dst");
    std::vector<double> h(n * 3, 0.0);  // [N, 3] = x W
    for (int64_t i = 0; i < n; ++i)
      for (int64_t k = 0; k < 3; ++k)
        for (int64_t q = 0; q < kIn; ++q) h[i * 3 + k] += double(x[i * kIn + q]) * w[q * 3 + k];
    Tensor ref({n, 3});
    for (int64_t i = 0; i < n; ++i) {
      std::vector<double> score;
      std::vector<int64_t> edges;
      for (int64_t e = 0; e < looped.num_edges(); ++e) {
        if (looped.dst[e] != i) continue;
        double s = 0;
        for (int64_t k = 0; k < 3; ++k) s += a_src[k] * h[looped.src[e] * 3 + k] + a_dst[k] * h[i * 3 + k];
        score.push_back(s > 0 ? s : 0.2 * s);
        edges.push_back(e);
      }
      double mx = -1e300, z = 0;
      for (double s : score) mx = std::max(mx, s);
      for (double& s : score) z += (s = std::exp(s - mx));
      for (std::size_t p = 0; p < edges.size(); ++p) {
        for (int64_t k = 0; k < 3; ++k) {
          ref[i * 3 + k] += float(score[p] / z * mask_of(edges[p]) * h[looped.src[edges[p]] * 3 + k]);
        }
      }
    }
    const Tensor y = layer->forward(NodeFeatures(Var(x)), g.with_edge_mask(Var(mask)), 0).value();
    CHECK(max_abs_diff(y, ref) < 1e-5f);
  }
  SECTION("gcn: out_i = sum_j m_ij (x_j W) / sqrt(d_i d_j) + b, degrees unmasked") {
    const auto layer = make_layer(registry, {"gcn", "gcn", {{"in_channels", kIn}, {"out_channels", 3}, {"seed", 2}}});
    const Tensor w = parameter(*layer, "weight");
    std::vector<double> degree(n, 0.0);
    for (int64_t e = 0; e < looped.num_edges(); ++e) degree[looped.dst[e]] += 1;
    Tensor ref({n, 3});
    for (int64_t e = 0; e < looped.num_edges(); ++e) {
      const int64_t i = looped.dst[e], j = looped.src[e];
      for (int64_t k = 0; k < 3; ++k) {
        double xw = 0;
        for (int64_t q = 0; q < kIn; ++q) xw += double(x[j * kIn + q]) * w[q * 3 + k];
        ref[i * 3 + k] += float(mask_of(e) * xw / std::sqrt(degree[i] * degree[j]));
      }
    }
    const Tensor y = layer->forward(NodeFeatures(Var(x)), g.with_edge_mask(Var(mask)), 0).value();
    CHECK(max_abs_diff(y, ref) < 1e-5f);  // the bias starts at zero
  }
}

TEST_CASE("graphormer refuses an edge mask, and a mask of another shape is refused", "[graph]") {
  const Registry registry = graph_registry();
  const GraphContext g = GraphContext::from_dataset(random_dataset(10, 20, 41));
  const auto layer = make_layer(registry, {"graphormer", "graphormer", {{"in_channels", kIn}, {"out_channels", 4}, {"heads", 2}}});
  const NodeFeatures x(Var(random_tensor({10, kIn}, 42)));
  CHECK_NOTHROW(layer->forward(x, g, 0));
  CHECK_THROWS_WITH(layer->forward(x, g.with_edge_mask(Var(Tensor({g.plain().num_edges()}, 1.0f))), 0),
                    Catch::Matchers::Contains("graphormer: an edge mask cannot be applied"));
  CHECK_THROWS_AS(g.with_edge_mask(Var(Tensor({g.plain().num_edges() + 1}, 1.0f))), Error);
  CHECK_THROWS_AS(g.with_edge_mask(Var()), Error);
}

TEST_CASE("a masked graph's self-loop view first built unrecorded is refused for a recorded pass", "[graph]") {
  const GraphContext g = GraphContext::from_dataset(random_dataset(10, 20, 43));
  const Var mask(Tensor({g.plain().num_edges()}, 0.5f), true);
  const GraphContext masked = g.with_edge_mask(mask);
  {
    NoGradGuard no_grad;
    CHECK_NOTHROW(masked.looped());
  }
  // Recorded now, it would give a mask gradient without the self-loop view's edges.
  CHECK_THROWS_WITH(masked.looped(), Catch::Matchers::Contains("first used without gradient recording"));
  // Built recorded first, it serves both modes.
  const GraphContext again = g.with_edge_mask(mask);
  CHECK_NOTHROW(again.looped());
  NoGradGuard no_grad;
  CHECK_NOTHROW(again.looped());
}

TEST_CASE("a masked adjacency is the same whether the edges come in row order or shuffled", "[graph]") {
  // Edges given in (destination, source) order take the stored-as-given path of the
  // adjacency's edge entries, shuffled ones the search: the matrix, the masked product and
  // each edge's mask gradient must agree.
  std::vector<int64_t> src, dst;
  for (int64_t i = 0; i < 12; ++i) {
    for (int64_t j = 0; j < 12; ++j) {
      if (i != j && (i * 7 + j * 3) % 5 < 2) {
        dst.push_back(i);
        src.push_back(j);
      }
    }
  }
  const auto e_count = static_cast<int64_t>(src.size());
  std::vector<int64_t> order(src.size());  // shuffled position of each sorted edge
  for (int64_t e = 0; e < e_count; ++e) order[e] = (e * 17 + 5) % e_count;
  REQUIRE(e_count % 17 != 0);  // (e * 17 + 5) mod E is then a permutation
  std::vector<int64_t> shuffled_src(src.size()), shuffled_dst(src.size());
  for (int64_t e = 0; e < e_count; ++e) {
    shuffled_src[order[e]] = src[e];
    shuffled_dst[order[e]] = dst[e];
  }
  const std::vector<int64_t> relation(src.size(), 0);
  const GraphContext sorted = GraphContext::from_edges(12, 2, src, dst, relation);
  const GraphContext shuffled = GraphContext::from_edges(12, 2, shuffled_src, shuffled_dst, relation);
  for (const bool normalize : {false, true}) {
    const Tensor a = sorted.adjacency(false, normalize)->to_dense(), b = shuffled.adjacency(false, normalize)->to_dense();
    CHECK(std::equal(a.data(), a.data() + a.numel(), b.data()));
    const Tensor mask_values = random_tensor({e_count}, 44, 0.1f, 1.0f);  // by sorted edge
    Tensor shuffled_values({e_count});
    for (int64_t e = 0; e < e_count; ++e) shuffled_values[order[e]] = mask_values[e];
    const Tensor h = random_tensor({12, 3}, 45);
    Var m_sorted(mask_values, true), m_shuffled(shuffled_values, true);
    const Var y_sorted = ops::sparse_matmul(sorted.with_edge_mask(m_sorted).adjacency(false, normalize), Var(h));
    const Var y_shuffled = ops::sparse_matmul(shuffled.with_edge_mask(m_shuffled).adjacency(false, normalize), Var(h));
    CHECK(std::equal(y_sorted.value().data(), y_sorted.value().data() + 36, y_shuffled.value().data()));
    ops::sum(y_sorted).backward();
    ops::sum(y_shuffled).backward();
    for (int64_t e = 0; e < e_count; ++e) CHECK(m_sorted.grad()[e] == m_shuffled.grad()[order[e]]);
  }
}

TEST_CASE("disjoint copies of a graph give the adjacency and masked gradients of the copies built from edges", "[graph]") {
  // A multigraph with a plain self-loop, a doubled edge, given degrees and relations: the
  // copies carry the adjacencies built before (block-diagonal, with each edge's entry) or
  // build them after; either way they must equal a graph built from the copied edge list.
  const std::vector<int64_t> src{1, 2, 3, 0, 2, 2, 4, 4, 1}, dst{0, 0, 1, 2, 3, 3, 3, 4, 4};
  const std::vector<int64_t> relation{0, 1, 0, 1, 0, 0, 1, 0, 1};
  const int64_t n = 5, e_count = static_cast<int64_t>(src.size()), copies = 3;
  const std::vector<int64_t> plain_degree{4, 2, 1, 3, 2}, looped_degree{5, 3, 2, 4, 3};
  std::vector<int64_t> all_src, all_dst, all_relation, all_plain, all_looped;
  for (int64_t k = 0; k < copies; ++k) {
    for (int64_t e = 0; e < e_count; ++e) {
      all_src.push_back(k * n + src[e]);
      all_dst.push_back(k * n + dst[e]);
      all_relation.push_back(relation[e]);
    }
    all_plain.insert(all_plain.end(), plain_degree.begin(), plain_degree.end());
    all_looped.insert(all_looped.end(), looped_degree.begin(), looped_degree.end());
  }
  GraphContext reference = GraphContext::from_edges(copies * n, 2, all_src, all_dst, all_relation);
  reference.set_normalization_degrees(all_plain, all_looped);
  for (const bool built_first : {true, false}) {
    CAPTURE(built_first);
    GraphContext one = GraphContext::from_edges(n, 2, src, dst, relation);
    one.set_normalization_degrees(plain_degree, looped_degree);
    if (built_first) {
      for (const bool self_loops : {false, true}) one.adjacency(self_loops, true)->transpose();
    }
    const GraphContext many = one.disjoint_copies(copies);
    REQUIRE(many.num_nodes() == copies * n);
    for (const bool self_loops : {false, true}) {
      CAPTURE(self_loops);
      const SparseMatrix& a = *many.adjacency(self_loops, true);
      const SparseMatrix& b = *reference.adjacency(self_loops, true);
      CHECK(a.indptr() == b.indptr());
      CHECK(a.indices() == b.indices());
      CHECK(a.values() == b.values());
      CHECK(a.transpose().indices() == b.transpose().indices());
      CHECK(a.transpose_positions() == b.transpose_positions());
      const Tensor mask_values = random_tensor({copies * e_count}, 46, 0.1f, 1.0f);  // [copies E]
      const Tensor h = random_tensor({copies * n, 3}, 47);
      Var m_many(mask_values, true), m_reference(mask_values, true);
      const Var y_many = ops::sparse_matmul(many.with_edge_mask(m_many).adjacency(self_loops, true), Var(h));
      const Var y_reference =
          ops::sparse_matmul(reference.with_edge_mask(m_reference).adjacency(self_loops, true), Var(h));
      CHECK(std::equal(y_many.value().data(), y_many.value().data() + y_many.value().numel(), y_reference.value().data()));
      ops::sum(y_many).backward();
      ops::sum(y_reference).backward();
      for (int64_t e = 0; e < copies * e_count; ++e) CHECK(m_many.grad()[e] == m_reference.grad()[e]);
    }
  }
}
