#include <catch2/catch.hpp>

#include "attend/core/error.hpp"
#include "attend/core/ops/indexing.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/random.hpp"
#include "grad_check.hpp"

using namespace attend;
using attend::testing::check_gradients;
using attend::testing::random_tensor;

namespace {
std::vector<int64_t> random_index(std::size_t m, int64_t n, uint64_t seed) {
  Rng rng(seed);
  std::vector<int64_t> index(m);
  for (int64_t& i : index) i = static_cast<int64_t>(rng.below(static_cast<uint64_t>(n)));
  return index;
}

// `m` distinct rows of [0, n) in a shuffled order (Fisher-Yates).
std::vector<int64_t> distinct_index(std::size_t m, int64_t n, uint64_t seed) {
  Rng rng(seed);
  std::vector<int64_t> rows(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) rows[static_cast<std::size_t>(i)] = i;
  for (std::size_t i = rows.size() - 1; i > 0; --i) std::swap(rows[i], rows[rng.below(i + 1)]);
  rows.resize(m);
  return rows;
}
}  // namespace

TEST_CASE("gather_rows and scatter_add_rows match naive loops", "[core]") {
  const Tensor x = random_tensor({6, 2, 3}, 1);
  const std::vector<int64_t> index{5, 0, 0, 3, 5, 2, 5};
  const Tensor g = ops::gather_rows(Var(x), index).value();
  REQUIRE(g.shape() == Shape{7, 2, 3});
  for (std::size_t m = 0; m < index.size(); ++m)
    for (int64_t k = 0; k < 6; ++k) CHECK(g[m * 6 + k] == x[index[m] * 6 + k]);

  const Tensor s = ops::scatter_add_rows(Var(g), index, 8).value();
  REQUIRE(s.shape() == Shape{8, 2, 3});
  Tensor ref({8, 2, 3});
  for (std::size_t m = 0; m < index.size(); ++m)
    for (int64_t k = 0; k < 6; ++k) ref[index[m] * 6 + k] += g[m * 6 + k];
  CHECK(bitwise_equal(s, ref));  // same order of additions per destination row
}

TEST_CASE("scatter undoes a gather by a permutation", "[core]") {
  const Tensor x = random_tensor({9, 4}, 2);
  const std::vector<int64_t> perm{3, 8, 0, 5, 1, 7, 2, 6, 4};
  const Tensor y = ops::scatter_add_rows(ops::gather_rows(Var(x), perm), perm, 9).value();
  CHECK(bitwise_equal(y, x));
}

TEST_CASE("embedding looks up rows", "[core]") {
  const Tensor w = random_tensor({5, 3}, 3);
  const Tensor e = ops::embedding(Var(w), {4, 1, 4}).value();
  REQUIRE(e.shape() == Shape{3, 3});
  for (int64_t k = 0; k < 3; ++k) {
    CHECK(e[k] == w[12 + k]);
    CHECK(e[3 + k] == w[3 + k]);
    CHECK(e[6 + k] == w[12 + k]);
  }
  CHECK_THROWS_AS(ops::embedding(Var(Tensor({5})), {1}), Error);
}

TEST_CASE("indexing ops reject out-of-range indices", "[core]") {
  const Var x(Tensor({4, 2}));
  CHECK_THROWS_AS(ops::gather_rows(x, {0, 4}), Error);
  CHECK_THROWS_AS(ops::gather_rows(x, {-1}), Error);
  CHECK_THROWS_AS(ops::scatter_add_rows(x, {0, 1, 2, 3}, 3), Error);
  CHECK_THROWS_AS(ops::scatter_add_rows(x, {0, 1, 2}, 5), Error);  // one index per row
  CHECK_THROWS_AS(ops::embedding(x, {7}), Error);
}

TEST_CASE("indexing gradients", "[core][grad]") {
  const std::vector<int64_t> index{2, 0, 2, 4, 1, 2};
  auto g = check_gradients([&](const std::vector<Var>& v) { return ops::gather_rows(v[0], index); },
                           {random_tensor({5, 3}, 4)});
  INFO(g.report);
  CHECK(g.ok);
  auto s = check_gradients(
      [&](const std::vector<Var>& v) { return ops::scatter_add_rows(v[0], index, 6); },
      {random_tensor({6, 2, 2}, 5)});
  INFO(s.report);
  CHECK(s.ok);
  const std::vector<int64_t> distinct{3, 0, 4};  // no repeats: the direct backward
  auto d = check_gradients([&](const std::vector<Var>& v) { return ops::gather_rows(v[0], distinct); },
                           {random_tensor({5, 3}, 7)});
  INFO(d.report);
  CHECK(d.ok);
  auto e = check_gradients(
      [&](const std::vector<Var>& v) {
        return ops::embedding(v[0], {3, 3, 0});
      },
      {random_tensor({4, 5}, 6)});
  INFO(e.report);
  CHECK(e.ok);
}

TEST_CASE("scatter_add_rows is bit-identical for 1 and 2 threads", "[core]") {
  const std::vector<int64_t> index = random_index(60000, 3000, 7);
  const Tensor x = random_tensor({60000, 8}, 8), gy = random_tensor({3000, 8}, 9);
  auto run = [&](int threads) {
    set_num_threads(threads);
    Var vx(x, true);
    Var y = ops::scatter_add_rows(vx, index, 3000);
    y.backward(gy);
    Var vw(gy, true);  // gather's backward is a scatter too
    Var z = ops::gather_rows(vw, index);
    z.backward(x);
    return std::vector<Tensor>{y.value(), vx.grad(), vw.grad()};
  };
  const int before = num_threads();
  const auto one = run(1), two = run(2);
  set_num_threads(before);
  for (std::size_t i = 0; i < one.size(); ++i) CHECK(bitwise_equal(one[i], two[i]));
}

TEST_CASE("gather_rows' backward by an index without repeats adds each row once, the same bits on 1 and 2 threads",
          "[core]") {
  const std::vector<int64_t> index = distinct_index(15000, 20000, 10);  // a shuffled subset
  const Tensor x = random_tensor({20000, 5}, 11), gy = random_tensor({15000, 5}, 12);
  const Tensor earlier = random_tensor({20000, 5}, 13);  // a gradient already there
  Tensor expected = earlier;
  for (std::size_t m = 0; m < index.size(); ++m)
    for (int64_t k = 0; k < 5; ++k) expected[index[m] * 5 + k] += gy[static_cast<int64_t>(m) * 5 + k];
  auto run = [&](int threads) {
    set_num_threads(threads);
    Var vx(x, true);
    vx.grad_mut().copy_from(earlier);
    ops::gather_rows(vx, index).backward(gy);
    return vx.grad();
  };
  const int before = num_threads();
  const Tensor one = run(1), two = run(2);
  set_num_threads(before);
  CHECK(bitwise_equal(one, expected));
  CHECK(bitwise_equal(two, expected));
}
