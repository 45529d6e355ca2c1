// The neighbour sampler: exact computation graphs at fan-out -1, fan-out bounds, sampling
// statistics, determinism for any thread count.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "attend/core/error.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/registry.hpp"
#include "attend/graph/builtin_layers.hpp"
#include "attend/graph/neighbor_sampler.hpp"
#include "attend/graph/node_classifier.hpp"
#include "grad_check.hpp"
#include "random_graphs.hpp"

using namespace attend;
using namespace attend::graph;
using attend::testing::random_dataset;
using attend::testing::random_tensor;
using attend::testing::random_typed_dataset;

namespace {

NeighborSamplerOptions fanouts(std::vector<int64_t> f, uint64_t seed = 1) {
  NeighborSamplerOptions o;
  o.fanouts = std::move(f);
  o.seed = seed;
  return o;
}

// The L-hop computation graph of `seeds` written out by breadth-first search over in-edges:
// the nodes within L hops and the in-edges (plain edge ids) of those within L - 1 hops.
std::pair<std::set<int64_t>, std::multiset<int64_t>> k_hop(const GraphContext& g, const std::vector<int64_t>& seeds,
                                                           int hops) {
  const GraphView& v = g.plain();
  std::set<int64_t> nodes(seeds.begin(), seeds.end());
  std::multiset<int64_t> edges;
  std::set<int64_t> frontier = nodes;
  for (int h = 0; h < hops; ++h) {
    std::set<int64_t> next;
    for (int64_t e = 0; e < v.num_edges(); ++e) {
      if (frontier.count(v.dst[e]) == 0) continue;
      edges.insert(e);
      if (nodes.insert(v.src[e]).second) next.insert(v.src[e]);
    }
    frontier = next;
  }
  return {nodes, edges};
}

Json layer(const std::string& type, Json config) { return {{"type", type}, {"config", std::move(config)}}; }

// The model's outputs on the seeds, run on the whole graph and on the seeds' sample
// (fan-outs -1, one hop per layer).
void check_sampled_logits_equal_full(const Json& model_config, const GraphContext& g, const NodeFeatures& x,
                                     const std::vector<int64_t>& seeds) {
  Registry registry;
  register_graph_layers(registry);
  NodeClassifier model(model_config, registry);
  model.eval();
  const Tensor full = model.forward(x, g, 0).value();  // [N, C]
  const int64_t c = full.dim(1);
  const auto depth = static_cast<int64_t>(model.layers().size());
  const SampledSubgraph s = sample_neighbors(g, seeds, fanouts(std::vector<int64_t>(depth, -1)));
  const Tensor sampled = model.forward(sampled_features(x, s.node_ids), s.graph, 0).value();  // [n, C]
  REQUIRE(sampled.dim(0) == static_cast<int64_t>(s.node_ids.size()));
  CHECK(s.node_ids.size() < static_cast<std::size_t>(g.num_nodes()));  // a real subgraph
  for (std::size_t b = 0; b < seeds.size(); ++b) {
    const int64_t local = s.seed_positions[b];
    REQUIRE(s.node_ids[local] == seeds[b]);
    for (int64_t k = 0; k < c; ++k) CHECK(sampled[local * c + k] == Approx(full[seeds[b] * c + k]).margin(1e-5));
  }
}

}  // namespace

TEST_CASE("fan-outs -1 give exactly the k-hop computation graph", "[graph]") {
  const GraphContext g = GraphContext::from_dataset(random_dataset(400, 700, 1));
  const std::vector<int64_t> seeds{5, 17, 250, 3};
  for (int hops : {1, 2, 3}) {
    const SampledSubgraph s = sample_neighbors(g, seeds, fanouts(std::vector<int64_t>(hops, -1)));
    const auto [nodes, edges] = k_hop(g, seeds, hops);
    INFO(hops << " hops");
    CHECK(std::set<int64_t>(s.node_ids.begin(), s.node_ids.end()) == nodes);
    CHECK(s.node_ids.size() == nodes.size());  // each node once
    CHECK(std::multiset<int64_t>(s.edge_ids.begin(), s.edge_ids.end()) == edges);
    CHECK(std::vector<int64_t>(s.node_ids.begin(), s.node_ids.begin() + 4) == seeds);  // seeds first
    // Each local edge is the whole graph's edge it names, in local ids.
    const GraphView& local = s.graph.plain();
    REQUIRE(local.num_edges() == static_cast<int64_t>(s.edge_ids.size()));
    for (int64_t e = 0; e < local.num_edges(); ++e) {
      CHECK(s.node_ids[local.src[e]] == g.plain().src[s.edge_ids[e]]);
      CHECK(s.node_ids[local.dst[e]] == g.plain().dst[s.edge_ids[e]]);
    }
    // The looped view has one self-loop per local node, as the whole graph's.
    CHECK(s.graph.looped().num_edges() ==
          local.num_edges() + static_cast<int64_t>(s.node_ids.size()) -
              std::count_if(s.edge_ids.begin(), s.edge_ids.end(),
                            [&](int64_t e) { return g.plain().src[e] == g.plain().dst[e]; }));
  }
}

TEST_CASE("with fan-outs -1 a model's outputs on the seeds equal its outputs on the whole graph", "[graph]") {
  const GraphContext g = GraphContext::from_dataset(random_dataset(300, 450, 2));
  const NodeFeatures x(Var(random_tensor({300, 6}, 3)));
  const std::vector<int64_t> seeds{0, 42, 299, 150, 7};
  SECTION("gat, two layers") {
    check_sampled_logits_equal_full(
        {{"layers", {layer("gat", {{"in_channels", 6}, {"out_channels", 4}, {"heads", 2}, {"seed", 1}}),
                     layer("gat", {{"in_channels", 8}, {"out_channels", 3}, {"seed", 2}})}}},
        g, x, seeds);
  }
  SECTION("gcn, three layers, normalised with self-loops and a plain sum") {
    check_sampled_logits_equal_full(
        {{"layers", {layer("gcn", {{"in_channels", 6}, {"out_channels", 5}, {"seed", 1}}),
                     layer("gcn", {{"in_channels", 5}, {"out_channels", 5}, {"normalize", false}, {"seed", 2}}),
                     layer("gcn", {{"in_channels", 5}, {"out_channels", 3}, {"seed", 3}})}},
         {"activation", "relu"}},
        g, x, seeds);
  }
  SECTION("gcn under jumping knowledge") {
    check_sampled_logits_equal_full(
        {{"layers", {layer("gcn", {{"in_channels", 6}, {"out_channels", 5}, {"seed", 1}}),
                     layer("gcn", {{"in_channels", 5}, {"out_channels", 5}, {"seed", 2}}),
                     layer("node_linear", {{"in_channels", 10}, {"out_channels", 3}, {"seed", 3}})}},
         {"jumping_knowledge", "cat"}},
        g, x, seeds);
  }
  SECTION("graph_transformer with edge features: the sample carries the sampled edges' rows") {
    GraphContext with_edges = GraphContext::from_dataset(random_dataset(300, 450, 2));
    with_edges.set_edge_features(random_tensor({with_edges.plain().num_edges(), 3}, 4));  // [E, 3]
    const SampledSubgraph s = sample_neighbors(with_edges, seeds, fanouts({-1, -1}));
    REQUIRE(s.graph.plain().has_edge_features());
    for (std::size_t e = 0; e < s.edge_ids.size(); ++e)
      for (int64_t c = 0; c < 3; ++c)
        CHECK(s.graph.plain().edge_features[static_cast<int64_t>(e) * 3 + c] ==
              with_edges.plain().edge_features[s.edge_ids[e] * 3 + c]);
    check_sampled_logits_equal_full(
        {{"layers", {layer("graph_transformer", {{"in_channels", 6}, {"out_channels", 4}, {"heads", 2}, {"edge_dim", 3}, {"seed", 1}}),
                     layer("graph_transformer", {{"in_channels", 8}, {"out_channels", 3}, {"edge_dim", 3}, {"seed", 2}})}}},
        with_edges, x, seeds);
  }
  SECTION("rgcn on a typed graph with featureless nodes (the identity's rows)") {
    const GraphContext typed = GraphContext::from_dataset(random_typed_dataset(200, 300, 3, 4));
    const int64_t r = typed.num_relations();
    check_sampled_logits_equal_full(
        {{"layers", {layer("rgcn", {{"in_channels", 200}, {"out_channels", 6}, {"num_relations", r}, {"num_bases", 2}, {"seed", 1}}),
                     layer("rgcn", {{"in_channels", 6}, {"out_channels", 3}, {"num_relations", r}, {"seed", 2}})}},
         {"activation", "relu"}},
        typed, NodeFeatures(identity_features(200)), {1, 50, 199});
  }
}

TEST_CASE("sampled fan-outs bound each node's in-edges, per hop, overall or per relation", "[graph]") {
  const GraphContext g = GraphContext::from_dataset(random_typed_dataset(300, 3000, 3, 5));
  const std::vector<int64_t> seeds{1, 2, 3, 4, 5, 6, 7, 8};
  const std::vector<int64_t> f{4, 2};
  for (bool replace : {false, true}) {
    for (bool per_relation : {false, true}) {
      NeighborSamplerOptions o = fanouts(f, 9);
      o.replace = replace;
      o.per_relation = per_relation;
      const SampledSubgraph s = sample_neighbors(g, seeds, o);
      INFO("replace " << replace << ", per relation " << per_relation);
      std::map<std::pair<int64_t, int64_t>, int64_t> count;  // (local node, relation or 0) -> in-edges
      std::map<std::pair<int64_t, int64_t>, int64_t> available;
      for (int64_t e = 0; e < s.graph.plain().num_edges(); ++e) {
        ++count[{s.graph.plain().dst[e], per_relation ? s.graph.plain().relation[e] : 0}];
      }
      for (std::size_t i = 0; i < s.node_ids.size(); ++i) {
        const int64_t v = s.node_ids[i];
        for (int64_t p = g.plain().csr.indptr()[v]; p < g.plain().csr.indptr()[v + 1]; ++p) {
          const int64_t e = g.plain().csr.edge_id()[p];
          ++available[{static_cast<int64_t>(i), per_relation ? g.plain().relation[e] : 0}];
        }
      }
      for (const auto& [key, have] : available) {
        const int64_t hop = s.hop[key.first];
        const int64_t got = count.count(key) ? count.at(key) : 0;
        if (hop == static_cast<int64_t>(f.size())) {
          CHECK(got == 0);  // the outermost nodes are not expanded
        } else {
          CHECK(got == (replace ? f[hop] : std::min(f[hop], have)));
        }
      }
      if (!replace) {  // distinct edges
        CHECK(std::set<int64_t>(s.edge_ids.begin(), s.edge_ids.end()).size() == s.edge_ids.size());
      }
    }
  }
}

TEST_CASE("a sample depends on the seed and the batch number, never on the thread count", "[graph]") {
  const GraphContext g = GraphContext::from_dataset(random_dataset(5000, 40000, 6));
  std::vector<int64_t> seeds;
  for (int64_t v = 0; v < 5000; v += 9) seeds.push_back(v);
  for (bool replace : {false, true}) {
    NeighborSamplerOptions o = fanouts({10, 5}, 11);
    o.replace = replace;
    const int before = num_threads();
    set_num_threads(1);
    const SampledSubgraph one = sample_neighbors(g, seeds, o, 3);
    set_num_threads(2);
    const SampledSubgraph two = sample_neighbors(g, seeds, o, 3);
    set_num_threads(before);
    CHECK(one.node_ids == two.node_ids);
    CHECK(one.edge_ids == two.edge_ids);
    CHECK(one.hop == two.hop);
    CHECK(sample_neighbors(g, seeds, o, 4).edge_ids != one.edge_ids);  // another batch, other draws
    o.seed = 12;
    CHECK(sample_neighbors(g, seeds, o, 3).edge_ids != one.edge_ids);
  }
}

TEST_CASE("each in-edge is drawn with probability fan-out / degree, with or without replacement", "[graph]") {
  // A star: 40 leaves pointing into node 0 (the plain view of a directed untyped graph keeps
  // only the given direction and the inverse relation). Over 4000 batches each of the 40
  // in-edges of node 0 should appear 4000 * 5 / 40 = 500 times (sd about 21 without
  // replacement, 21 with).
  NodeDataset star;
  star.num_nodes = 41;
  star.directed = true;
  for (int64_t leaf = 1; leaf <= 40; ++leaf) {
    star.edge_src.push_back(leaf);
    star.edge_dst.push_back(0);
  }
  star.labels.assign(41, 0);
  star.num_classes = 1;
  const GraphContext g = GraphContext::from_dataset(star);
  REQUIRE(g.plain().csr.in_degree(0) == 40);
  for (bool replace : {false, true}) {
    NeighborSamplerOptions o = fanouts({5}, 13);
    o.replace = replace;
    std::map<int64_t, int64_t> times;
    int64_t with_repeats = 0;
    for (uint64_t batch = 0; batch < 4000; ++batch) {
      const SampledSubgraph s = sample_neighbors(g, {0}, o, batch);
      REQUIRE(s.edge_ids.size() == 5);
      for (int64_t e : s.edge_ids) ++times[e];
      with_repeats += std::set<int64_t>(s.edge_ids.begin(), s.edge_ids.end()).size() < 5;
    }
    INFO("replace " << replace);
    CHECK(times.size() == 40);
    for (const auto& [edge, n] : times) CHECK(std::abs(n - 500) < 110);  // 5 sd
    // Five draws from 40 with replacement repeat one with probability
    // 1 - (40 * 39 * 38 * 37 * 36) / 40^5 = 0.2289 (sd over 4000 batches: 0.0067).
    if (replace) {
      CHECK(std::abs(with_repeats / 4000.0 - 0.2289) < 0.035);
    } else {
      CHECK(with_repeats == 0);
    }
  }
}

TEST_CASE("with smaller fan-outs GCN keeps the whole graph's coefficient on every sampled edge", "[graph]") {
  const GraphContext g = GraphContext::from_dataset(random_dataset(200, 900, 8));
  const SampledSubgraph s = sample_neighbors(g, {3, 9, 27}, fanouts({3, 2}, 14));
  for (bool self_loops : {true, false}) {
    const SparseMatrix& local = *s.graph.adjacency(self_loops, true);
    const SparseMatrix& whole = *g.adjacency(self_loops, true);
    auto entry = [](const SparseMatrix& m, int64_t i, int64_t j) {
      for (int64_t p = m.indptr()[i]; p < m.indptr()[i + 1]; ++p) {
        if (m.indices()[p] == j) return m.values()[p];
      }
      return 0.0f;
    };
    INFO("self loops " << self_loops);
    for (int64_t i = 0; i < local.rows(); ++i) {
      for (int64_t p = local.indptr()[i]; p < local.indptr()[i + 1]; ++p) {
        const int64_t j = local.indices()[p];
        CHECK(local.values()[p] == entry(whole, s.node_ids[i], s.node_ids[j]));
      }
    }
  }
}

TEST_CASE("seed batches cover every node once, shuffled by their seed", "[graph]") {
  std::vector<int64_t> nodes(103);
  for (int64_t i = 0; i < 103; ++i) nodes[i] = 1000 + i;
  const auto in_order = seed_batches(nodes, 25, false, 0);
  REQUIRE(in_order.size() == 5);
  CHECK(in_order.back().size() == 3);
  CHECK(in_order[0][0] == 1000);
  const auto shuffled = seed_batches(nodes, 25, true, 7);
  CHECK(shuffled == seed_batches(nodes, 25, true, 7));
  CHECK(shuffled != in_order);
  std::vector<int64_t> all;
  for (const auto& b : shuffled) all.insert(all.end(), b.begin(), b.end());
  std::sort(all.begin(), all.end());
  CHECK(all == nodes);
  CHECK_THROWS_AS(seed_batches(nodes, 0, false, 0), InputError);
}

TEST_CASE("the sampler refuses bad fan-outs and seeds", "[graph]") {
  const GraphContext g = GraphContext::from_dataset(random_dataset(10, 20, 7));
  CHECK_THROWS_WITH(sample_neighbors(g, {1}, fanouts({})), Catch::Contains("one fan-out per hop"));
  CHECK_THROWS_WITH(sample_neighbors(g, {1}, fanouts({0})), Catch::Contains("got 0"));
  CHECK_THROWS_AS(sample_neighbors(g, {1}, fanouts({-2})), InputError);
  CHECK_THROWS_WITH(sample_neighbors(g, {1, 1}, fanouts({2})), Catch::Contains("repeated"));
  CHECK_THROWS_WITH(sample_neighbors(g, {10}, fanouts({2})), Catch::Contains("not in the graph"));
}
