#include <catch2/catch.hpp>
#include <cmath>

#include "attend/core/error.hpp"
#include "attend/core/ops/loss.hpp"
#include "grad_check.hpp"

using namespace attend;
using attend::testing::check_gradients;
using attend::testing::random_tensor;

TEST_CASE("cross_entropy matches a hand computation over the listed rows", "[core]") {
  const Tensor logits = random_tensor({5, 4}, 1, -3.0f, 3.0f);
  const std::vector<int64_t> labels{2, -1, 0, 3, -1};  // -1: unlabelled, never listed
  const std::vector<int64_t> rows{3, 0, 2, 3};
  double ref = 0;
  for (int64_t r : rows) {
    double z = 0;
    for (int64_t j = 0; j < 4; ++j) z += std::exp(double(logits[r * 4 + j]));
    ref += -(double(logits[r * 4 + labels[r]]) - std::log(z));
  }
  ref /= rows.size();
  const Var loss = ops::cross_entropy(Var(logits), labels, rows);
  CHECK(loss.shape() == Shape{});
  CHECK(loss.value().item() == Approx(ref).margin(1e-6));
  // Unlisted rows get no gradient.
  Var x(logits, true);
  ops::cross_entropy(x, labels, rows).backward();
  for (int64_t j = 0; j < 4; ++j) CHECK(x.grad()[1 * 4 + j] == 0.0f);
}

TEST_CASE("cross_entropy rejects bad rows and labels", "[core]") {
  const Var x(Tensor({3, 2}));
  CHECK_THROWS_AS(ops::cross_entropy(x, {0, 1, 1}, {}), Error);
  CHECK_THROWS_AS(ops::cross_entropy(x, {0, 1}, {0}), Error);
  CHECK_THROWS_AS(ops::cross_entropy(x, {0, 2, 1}, {1}), Error);
  CHECK_THROWS_AS(ops::cross_entropy(x, {0, -1, 1}, {1}), Error);
  CHECK_THROWS_AS(ops::cross_entropy(x, {0, 1, 1}, {3}), Error);
}

TEST_CASE("binary_cross_entropy_with_logits matches the naive formula and stays finite", "[core]") {
  const Tensor x = random_tensor({4, 5}, 2, -4.0f, 4.0f);
  const Tensor t = random_tensor({4, 5}, 3, 0.0f, 1.0f);
  const Tensor w = random_tensor({4, 5}, 4, 0.0f, 2.0f);
  double plain = 0, weighted = 0;
  for (int64_t i = 0; i < 20; ++i) {
    const double p = 1.0 / (1.0 + std::exp(-double(x[i])));
    const double l = -(t[i] * std::log(p) + (1.0 - t[i]) * std::log(1.0 - p));
    plain += l / 20.0;
    weighted += w[i] * l / 20.0;
  }
  CHECK(ops::binary_cross_entropy_with_logits(Var(x), t).value().item() ==
        Approx(plain).margin(1e-6));
  CHECK(ops::binary_cross_entropy_with_logits(Var(x), t, &w).value().item() ==
        Approx(weighted).margin(1e-6));
  const Tensor big({2}, {-150.0f, 150.0f});
  const float l =
      ops::binary_cross_entropy_with_logits(Var(big), Tensor({2}, {1.0f, 0.0f})).value().item();
  CHECK(l == Approx(150.0).margin(1e-3));
  CHECK_THROWS_AS(ops::binary_cross_entropy_with_logits(Var(x), Tensor({20})), Error);
}

TEST_CASE("loss gradients", "[core][grad]") {
  const std::vector<int64_t> labels{1, 0, 3, -1, 2, 0};
  const std::vector<int64_t> rows{0, 2, 4, 2, 5};
  auto ce = check_gradients(
      [&](const std::vector<Var>& v) { return ops::cross_entropy(v[0], labels, rows); },
      {random_tensor({6, 4}, 5, -2.0f, 2.0f)});
  INFO(ce.report);
  CHECK(ce.ok);
  const Tensor t = random_tensor({3, 4}, 6, 0.0f, 1.0f), w = random_tensor({3, 4}, 7, 0.0f, 2.0f);
  auto bce = check_gradients(
      [&](const std::vector<Var>& v) { return ops::binary_cross_entropy_with_logits(v[0], t, &w); },
      {random_tensor({3, 4}, 8, -3.0f, 3.0f)});
  INFO(bce.report);
  CHECK(bce.ok);
  auto plain = check_gradients(
      [&](const std::vector<Var>& v) { return ops::binary_cross_entropy_with_logits(v[0], t); },
      {random_tensor({3, 4}, 9, -3.0f, 3.0f)});
  INFO(plain.report);
  CHECK(plain.ok);
}
