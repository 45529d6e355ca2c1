#include <catch2/catch.hpp>

#include <deque>

#include "attend/core/parallel.hpp"
#include "attend/core/random.hpp"
#include "attend/graph/graph_algorithms.hpp"

using namespace attend;
using namespace attend::graph;

namespace {
EdgeList random_edges(int64_t n, int64_t m, uint64_t seed) {
  Rng rng(seed);
  EdgeList e{n, {}, {}};
  for (int64_t i = 0; i < m; ++i) {
    e.src.push_back(static_cast<int64_t>(rng.below(n)));
    e.dst.push_back(static_cast<int64_t>(rng.below(n)));
  }
  return e;
}

// Plain BFS over an adjacency list, the reference for the Boost version.
std::vector<int32_t> naive_distances(const EdgeList& e, int32_t cap) {
  const int64_t n = e.num_nodes;
  std::vector<std::vector<int64_t>> adj(n);
  for (std::size_t i = 0; i < e.src.size(); ++i) {
    adj[e.src[i]].push_back(e.dst[i]);
    adj[e.dst[i]].push_back(e.src[i]);
  }
  std::vector<int32_t> out(n * n, cap + 1);
  for (int64_t s = 0; s < n; ++s) {
    std::vector<int32_t> d(n, -1);
    std::deque<int64_t> q{s};
    d[s] = 0;
    while (!q.empty()) {
      int64_t u = q.front();
      q.pop_front();
      for (int64_t v : adj[u])
        if (d[v] < 0) {
          d[v] = d[u] + 1;
          q.push_back(v);
        }
    }
    for (int64_t t = 0; t < n; ++t)
      if (d[t] >= 0 && d[t] <= cap) out[s * n + t] = d[t];
  }
  return out;
}
}  // namespace

TEST_CASE("symmetrize and self-loops", "[graph]") {
  EdgeList e{3, {0, 1, 2, 0}, {1, 0, 2, 1}};
  const EdgeList s = symmetrize(e);
  CHECK(s.src == std::vector<int64_t>{1, 0, 2});
  CHECK(s.dst == std::vector<int64_t>{0, 1, 2});
  const EdgeList l = with_self_loops(s);
  CHECK(l.size() == 5);
  CHECK(degree_stats(l).min_in == 1);
  CHECK(degree_stats(EdgeList{4, {0}, {1}}).isolated == 2);
}

TEST_CASE("connected components", "[graph]") {
  int64_t count = 0;
  auto c = connected_components(EdgeList{6, {0, 3, 4}, {1, 2, 3}}, &count);
  CHECK(count == 3);
  CHECK(c == std::vector<int64_t>{0, 0, 1, 1, 1, 2});
}

TEST_CASE("BFS distances match a plain BFS, for any thread count", "[graph]") {
  const EdgeList e = random_edges(60, 70, 3);
  const auto reference = naive_distances(e, 4);
  const int before = num_threads();
  set_num_threads(1);
  CHECK(shortest_path_distances(e, 4) == reference);
  set_num_threads(2);
  CHECK(shortest_path_distances(e, 4) == reference);
  set_num_threads(before);
}
