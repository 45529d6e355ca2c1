#include <catch2/catch.hpp>

#include <algorithm>
#include <utility>
#include <vector>

#include "attend/core/csr.hpp"
#include "attend/core/error.hpp"
#include "attend/core/random.hpp"

using namespace attend;

TEST_CASE("Csr::from_edges groups in-edges by destination, stable", "[core]") {
  // Node 3 has no in-edges; 1 -> 1 is a self-loop; 0 -> 2 appears twice.
  const std::vector<int64_t> src{0, 1, 2, 0, 1, 0, 4};
  const std::vector<int64_t> dst{2, 1, 0, 2, 2, 4, 2};
  const Csr g = Csr::from_edges(5, src, dst);
  REQUIRE(g.n_nodes() == 5);
  REQUIRE(g.n_edges() == 7);
  CHECK(g.indptr() == std::vector<int64_t>{0, 1, 2, 6, 6, 7});
  // Row 2 keeps input order: edges 0 (0->2), 3 (0->2), 4 (1->2), 6 (4->2).
  CHECK(g.src() == std::vector<int64_t>{2, 1, 0, 0, 1, 4, 0});
  CHECK(g.edge_id() == std::vector<int64_t>{2, 1, 0, 3, 4, 6, 5});
  CHECK(g.in_degree(3) == 0);
  CHECK(g.in_degree(2) == 4);
}

TEST_CASE("Csr transpose lists every out-edge by position", "[core]") {
  Rng rng(7);
  const int64_t n = 40, e = 300;
  std::vector<int64_t> src(e), dst(e);
  for (int64_t k = 0; k < e; ++k) {
    src[k] = static_cast<int64_t>(rng.below(n));
    dst[k] = static_cast<int64_t>(rng.below(n / 2));  // half the nodes have no in-edges
  }
  const Csr g = Csr::from_edges(n, src, dst);
  // Every original edge appears once in the destination-major arrays.
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t p = g.indptr()[i]; p < g.indptr()[i + 1]; ++p) {
      const int64_t id = g.edge_id()[p];
      CHECK(dst[id] == i);
      CHECK(src[id] == g.src()[p]);
    }
  }
  // Naive transpose: for each source, its (destination, position) pairs by position.
  for (int64_t j = 0; j < n; ++j) {
    std::vector<std::pair<int64_t, int64_t>> expected;
    for (int64_t p = 0; p < e; ++p) {
      if (g.src()[p] != j) continue;
      const auto row = std::upper_bound(g.indptr().begin(), g.indptr().end(), p) -
                       g.indptr().begin() - 1;
      expected.emplace_back(row, p);
    }
    std::vector<std::pair<int64_t, int64_t>> got;
    for (int64_t k = g.out_indptr()[j]; k < g.out_indptr()[j + 1]; ++k) {
      got.emplace_back(g.out_dst()[k], g.out_pos()[k]);
    }
    CHECK(got == expected);
  }
}

TEST_CASE("Csr handles empty graphs", "[core]") {
  const Csr none;
  CHECK(none.n_nodes() == 0);
  CHECK(none.n_edges() == 0);
  const Csr isolated = Csr::from_edges(3, {}, {});
  CHECK(isolated.indptr() == std::vector<int64_t>{0, 0, 0, 0});
  CHECK(isolated.out_indptr() == std::vector<int64_t>{0, 0, 0, 0});
}

TEST_CASE("Csr rejects malformed input", "[core]") {
  CHECK_THROWS_AS(Csr::from_edges(3, {0, 1}, {1}), Error);
  CHECK_THROWS_WITH(Csr::from_edges(3, {0, 3}, {1, 1}), Catch::Contains("outside [0, 3)"));
  CHECK_THROWS_AS(Csr::from_edges(3, {0}, {-1}), Error);
  CHECK_THROWS_WITH(Csr(2, {0, 1}, {0}, {0}), Catch::Contains("n_nodes + 1"));
  CHECK_THROWS_WITH(Csr(2, {0, 2, 1}, {0}, {0}), Catch::Contains("indptr"));
  CHECK_THROWS_WITH(Csr(2, {0, 1, 2}, {0, 5}, {0, 1}), Catch::Contains("source 5"));
  CHECK_THROWS_WITH(Csr(2, {0, 1, 2}, {0, 1}, {1, 1}), Catch::Contains("permutation"));
  CHECK_NOTHROW(Csr(2, {0, 1, 2}, {1, 0}, {1, 0}));
}
