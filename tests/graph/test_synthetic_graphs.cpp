// The building blocks of the GNNExplainer benchmarks: Barabasi-Albert graph, balanced tree,
// motifs, planting and noise; and the uniform random multigraph of the layer tests.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "attend/core/error.hpp"
#include "attend/graph/balanced_tree.hpp"
#include "attend/graph/barabasi_albert_graph.hpp"
#include "attend/graph/graph_algorithms.hpp"
#include "attend/graph/motif_graph.hpp"
#include "attend/graph/network_motif.hpp"
#include "attend/graph/random_multigraph.hpp"

using namespace attend;
using namespace attend::graph;

namespace {

std::vector<int64_t> degrees(int64_t n, const std::vector<int64_t>& src, const std::vector<int64_t>& dst) {
  std::vector<int64_t> d(n, 0);
  for (std::size_t e = 0; e < src.size(); ++e) {
    ++d[src[e]];
    ++d[dst[e]];
  }
  return d;
}

// Every undirected pair once, no self-loop.
bool simple(const std::vector<int64_t>& src, const std::vector<int64_t>& dst) {
  std::set<std::pair<int64_t, int64_t>> seen;
  for (std::size_t e = 0; e < src.size(); ++e) {
    if (src[e] == dst[e] || !seen.insert(std::minmax(src[e], dst[e])).second) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("barabasi_albert_graph grows m (n - m) simple edges, deterministic for a seed", "[graph]") {
  Rng rng(1);
  const EdgeList g = barabasi_albert_graph(300, 5, rng);
  CHECK(g.num_nodes == 300);
  CHECK(g.size() == 5 * (300 - 5));
  CHECK(simple(g.src, g.dst));
  const std::vector<int64_t> d = degrees(300, g.src, g.dst);
  CHECK(*std::min_element(d.begin() + 6, d.end()) >= 5);  // every node after the star brings 5 edges
  CHECK(*std::max_element(d.begin(), d.end()) > 30);      // preferential attachment makes hubs
  int64_t components = 0;
  connected_components(g, &components);
  CHECK(components == 1);
  Rng same(1), other(2);
  const EdgeList again = barabasi_albert_graph(300, 5, same);
  CHECK(again.src == g.src);
  CHECK(again.dst == g.dst);
  CHECK(barabasi_albert_graph(300, 5, other).dst != g.dst);
  Rng any(0);
  CHECK_THROWS_AS(barabasi_albert_graph(5, 5, any), Error);
}

TEST_CASE("balanced_tree numbers nodes breadth first", "[graph]") {
  const EdgeList t = balanced_tree(2, 8);
  CHECK(t.num_nodes == 511);
  CHECK(t.size() == 510);
  for (int64_t e = 0; e < t.size(); ++e) CHECK(t.src[e] == (t.dst[e] - 1) / 2);
  const std::vector<int64_t> d = degrees(511, t.src, t.dst);
  CHECK(d[0] == 2);
  CHECK(std::count(d.begin(), d.end(), 3) == 254);  // internal nodes
  CHECK(std::count(d.begin(), d.end(), 1) == 256);  // leaves
  CHECK(balanced_tree(3, 2).num_nodes == 13);
  CHECK_THROWS_AS(balanced_tree(1, 3), Error);
}

TEST_CASE("house, cycle and grid motifs have their shapes and roles", "[graph]") {
  const NetworkMotif house = house_motif();
  CHECK(house.num_nodes == 5);
  CHECK(house.edges.size() == 6);
  CHECK(house.roles == std::vector<int64_t>{0, 0, 1, 1, 2});
  CHECK(house.num_roles() == 3);
  std::vector<int64_t> s, t;
  for (const auto& [u, v] : house.edges) {
    s.push_back(u);
    t.push_back(v);
  }
  CHECK(simple(s, t));
  CHECK(degrees(5, s, t) == std::vector<int64_t>{3, 3, 2, 2, 2});  // the roof sits on 0-1
  const NetworkMotif cycle = cycle_motif(6);
  CHECK(cycle.edges.size() == 6);
  CHECK(cycle.num_roles() == 1);
  const NetworkMotif grid = grid_motif(3);
  CHECK(grid.num_nodes == 9);
  CHECK(grid.edges.size() == 12);
  s.clear();
  t.clear();
  for (const auto& [u, v] : grid.edges) {
    s.push_back(u);
    t.push_back(v);
  }
  CHECK(degrees(9, s, t) == std::vector<int64_t>{2, 3, 2, 3, 4, 3, 2, 3, 2});
  CHECK_THROWS_AS(cycle_motif(2), Error);
}

TEST_CASE("attach_motifs plants copies on distinct base nodes, add_noise_edges adds new pairs", "[graph]") {
  Rng rng(3);
  MotifGraph g = MotifGraph::from_base(balanced_tree(2, 4));  // 31 nodes
  attach_motifs(g, house_motif(), random_base_nodes(31, 31, rng));  // every base node gets one
  CHECK(g.num_nodes == 31 + 31 * 5);
  CHECK(g.num_motifs == 31);
  CHECK(std::count(g.is_motif_edge.begin(), g.is_motif_edge.end(), true) == 31 * 6);
  std::set<int64_t> anchors_on;
  for (int64_t e = 0; e < g.num_edges(); ++e) {
    const bool joins = g.motif[g.src[e]] >= 0 && g.motif[g.dst[e]] < 0;
    if (!joins) continue;
    CHECK_FALSE(g.is_motif_edge[e]);
    CHECK((g.src[e] - 31) % 5 == 0);  // from the anchor, node 0 of the copy
    anchors_on.insert(g.dst[e]);
  }
  CHECK(anchors_on.size() == 31);
  for (int64_t i = 31; i < g.num_nodes; ++i) {
    CHECK(g.motif[i] == (i - 31) / 5);
    CHECK(g.label[i] == 1 + house_motif().roles[(i - 31) % 5]);
  }
  const int64_t before = g.num_edges();
  add_noise_edges(g, 40, rng);
  CHECK(g.num_edges() == before + 40);
  CHECK(simple(g.src, g.dst));
  CHECK_THROWS_AS(random_base_nodes(32, 31, rng), Error);
  CHECK_THROWS_AS(attach_motifs(g, house_motif(), {g.num_nodes}), Error);
}

TEST_CASE("evenly spaced base nodes and the authors' second join of a cycle", "[graph]") {
  CHECK(evenly_spaced_base_nodes(60, 511).size() == 60);
  CHECK(evenly_spaced_base_nodes(60, 511).back() == 472);  // spacing floor(511 / 60) = 8
  CHECK(evenly_spaced_base_nodes(80, 511)[1] == 6);
  CHECK(evenly_spaced_base_nodes(3, 3) == std::vector<int64_t>{0, 1, 2});
  CHECK_THROWS_AS(evenly_spaced_base_nodes(0, 3), Error);
  CHECK_THROWS_AS(evenly_spaced_base_nodes(4, 3), Error);
  Rng rng(5);
  MotifGraph g = MotifGraph::from_base(balanced_tree(2, 8));  // 511 nodes
  const std::vector<int64_t> bases = evenly_spaced_base_nodes(60, 511);
  attach_motifs(g, cycle_motif(6), bases);
  const int64_t joined = g.num_edges();
  add_second_joins(g, cycle_motif(6), 511, bases, rng);
  const int64_t seconds = g.num_edges() - joined;
  CHECK(seconds >= 15);  // Binomial(60, 1/2): 30 on average
  CHECK(seconds <= 45);
  std::set<int64_t> copies;
  for (int64_t e = joined; e < g.num_edges(); ++e) {
    CHECK_FALSE(g.is_motif_edge[e]);
    const int64_t k = (g.src[e] - 511) / 6, a = (g.src[e] - 511) % 6, b = g.dst[e] - bases[k];
    CHECK(copies.insert(k).second);  // one second join per cycle at most
    CHECK((a >= 1 && a <= 3));
    CHECK((b >= 1 && b <= 3));
  }
  CHECK(simple(g.src, g.dst));
  CHECK_THROWS_AS(add_second_joins(g, cycle_motif(3), 511, bases, rng), Error);      // no node 3 in a 3-cycle
  CHECK_THROWS_AS(add_second_joins(g, cycle_motif(6), 475, {472}, rng), Error);      // 472 + 3 is no base node
}

TEST_CASE("random_multigraph draws uniform endpoints and relations, the same for a seed", "[graph]") {
  const RandomMultigraphSpec spec{.num_nodes = 10, .num_edges = 20000, .num_relations = 4, .directed = true};
  Rng a(5), b(5), c(6);
  const NodeDataset g = random_multigraph(spec, a);
  const NodeDataset same = random_multigraph(spec, b);
  CHECK(g.edge_src == same.edge_src);
  CHECK(g.edge_dst == same.edge_dst);
  CHECK(g.edge_type == same.edge_type);
  CHECK(g.edge_src != random_multigraph(spec, c).edge_src);
  REQUIRE(g.edge_src.size() == 20000);
  REQUIRE(g.edge_type.size() == 20000);
  CHECK(g.directed);
  CHECK(g.relation_names == std::vector<std::string>{"r0", "r1", "r2", "r3"});
  CHECK(std::all_of(g.labels.begin(), g.labels.end(), [](int64_t y) { return y == -1; }));
  // 40000 endpoints over 10 nodes (4000 expected each, sd 60) and 20000 relations over 4
  // (5000 expected each, sd 61); self-loops 1 / 10 of the edges (2000 expected, sd 42).
  std::map<int64_t, int64_t> endpoints, relations;
  int64_t loops = 0;
  for (std::size_t e = 0; e < g.edge_src.size(); ++e) {
    ++endpoints[g.edge_src[e]];
    ++endpoints[g.edge_dst[e]];
    ++relations[g.edge_type[e]];
    loops += g.edge_src[e] == g.edge_dst[e];
  }
  REQUIRE(endpoints.size() == 10);
  for (const auto& [node, count] : endpoints) CHECK(std::abs(count - 4000) < 400);
  REQUIRE(relations.size() == 4);
  for (const auto& [relation, count] : relations) CHECK(std::abs(count - 5000) < 400);
  CHECK(std::abs(loops - 2000) < 300);
}

TEST_CASE("random_multigraph without relations is untyped, and refuses edges without nodes", "[graph]") {
  Rng rng(1);
  const NodeDataset g = random_multigraph({.num_nodes = 3, .num_edges = 5}, rng);
  CHECK_FALSE(g.directed);
  CHECK(g.edge_type.empty());
  CHECK(g.relation_names.empty());
  CHECK(random_multigraph({.num_nodes = 0, .num_edges = 0}, rng).num_nodes == 0);
  CHECK_THROWS_AS(random_multigraph({.num_nodes = 0, .num_edges = 1}, rng), Error);
  CHECK_THROWS_AS(random_multigraph({.num_nodes = 2, .num_edges = -1}, rng), Error);
}
