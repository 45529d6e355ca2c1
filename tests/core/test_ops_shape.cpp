#include <catch2/catch.hpp>

#include "attend/core/error.hpp"
#include "attend/core/ops/shape.hpp"
#include "grad_check.hpp"

using namespace attend;
using attend::testing::check_gradients;
using attend::testing::random_tensor;

TEST_CASE("concat and split on the last axis", "[core]") {
  const Tensor a = random_tensor({2, 3, 2}, 1), b = random_tensor({2, 3, 4}, 2),
               c = random_tensor({2, 3, 1}, 3);
  const Tensor y = ops::concat({Var(a), Var(b), Var(c)}).value();
  REQUIRE(y.shape() == Shape{2, 3, 7});
  for (int64_t r = 0; r < 6; ++r) {
    for (int64_t j = 0; j < 2; ++j) CHECK(y[r * 7 + j] == a[r * 2 + j]);
    for (int64_t j = 0; j < 4; ++j) CHECK(y[r * 7 + 2 + j] == b[r * 4 + j]);
    CHECK(y[r * 7 + 6] == c[r]);
  }
  const std::vector<Var> parts = ops::split(Var(y), {2, 4, 1});
  REQUIRE(parts.size() == 3);
  CHECK(bitwise_equal(parts[0].value(), a));
  CHECK(bitwise_equal(parts[1].value(), b));
  CHECK(bitwise_equal(parts[2].value(), c));
  CHECK_THROWS_AS(ops::split(Var(y), {2, 4}), Error);
  CHECK_THROWS_AS(ops::concat({Var(a), Var(random_tensor({3, 2, 2}, 4))}), Error);
}

TEST_CASE("reshape infers one dimension and keeps the values", "[core]") {
  const Tensor x = random_tensor({4, 6}, 5);
  const Tensor y = ops::reshape(Var(x), {2, -1, 3}).value();
  REQUIRE(y.shape() == Shape{2, 4, 3});
  for (int64_t i = 0; i < x.numel(); ++i) CHECK(y[i] == x[i]);
  CHECK_THROWS_AS(ops::reshape(Var(x), {5, -1}), Error);
  CHECK_THROWS_AS(ops::reshape(Var(x), {-1, -1}), Error);
  CHECK_THROWS_AS(ops::reshape(Var(x), {4, 5}), Error);
}

TEST_CASE("permute matches a naive transpose", "[core]") {
  const Tensor x = random_tensor({2, 3, 4, 5}, 6);
  const std::vector<int> axes{2, 0, 3, 1};
  const Tensor y = ops::permute(Var(x), axes).value();
  REQUIRE(y.shape() == Shape{4, 2, 5, 3});
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t k = 0; k < 4; ++k)
        for (int64_t l = 0; l < 5; ++l) CHECK(y.at({k, i, l, j}) == x.at({i, j, k, l}));
  const Tensor back = ops::permute(Var(y), {1, 3, 0, 2}).value();
  CHECK(bitwise_equal(back, x));
  CHECK_THROWS_AS(ops::permute(Var(x), {0, 1, 1, 2}), Error);
  CHECK_THROWS_AS(ops::permute(Var(x), {0, 1, 2}), Error);
}

TEST_CASE("shape op gradients", "[core][grad]") {
  auto cat = check_gradients(
      [](const std::vector<Var>& v) {
        return ops::concat({v[0], v[1], v[2]});
      },
      {random_tensor({3, 2}, 7), random_tensor({3, 3}, 8), random_tensor({3, 1}, 9)});
  INFO(cat.report);
  CHECK(cat.ok);
  auto spl = check_gradients(
      [](const std::vector<Var>& v) {
        std::vector<Var> p = ops::split(v[0], {1, 3, 2});
        return ops::concat({p[2], p[0], p[1]});
      },
      {random_tensor({2, 2, 6}, 10)});
  INFO(spl.report);
  CHECK(spl.ok);
  auto one_piece = check_gradients(
      [](const std::vector<Var>& v) {
        return ops::split(v[0], {1, 3, 2})[1];
      },
      {random_tensor({4, 6}, 11)});
  INFO(one_piece.report);
  CHECK(one_piece.ok);
  auto resh = check_gradients(
      [](const std::vector<Var>& v) {
        return ops::reshape(v[0], {3, -1});
      },
      {random_tensor({2, 3, 2}, 12)});
  INFO(resh.report);
  CHECK(resh.ok);
  auto perm = check_gradients(
      [](const std::vector<Var>& v) {
        return ops::permute(v[0], {2, 0, 1});
      },
      {random_tensor({2, 3, 4}, 13)});
  INFO(perm.report);
  CHECK(perm.ok);
  auto perm6 = check_gradients(
      [](const std::vector<Var>& v) {
        return ops::permute(v[0], {5, 3, 0, 4, 1, 2});
      },
      {random_tensor({2, 1, 3, 2, 1, 2}, 14)});
  INFO(perm6.report);
  CHECK(perm6.ok);
}
