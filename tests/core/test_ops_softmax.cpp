#include <catch2/catch.hpp>
#include <cmath>

#include "attend/core/error.hpp"
#include "attend/core/ops/softmax.hpp"
#include "grad_check.hpp"

using namespace attend;
using attend::testing::check_gradients;
using attend::testing::random_tensor;

TEST_CASE("softmax rows sum to one and match a naive softmax", "[core]") {
  Tensor x = random_tensor({2, 3, 7}, 1, -4.0f, 4.0f);
  for (int64_t j = 0; j < 7; ++j) x[j] += 1000.0f;  // a row that overflows a naive exp
  const Tensor y = ops::softmax(Var(x)).value();
  REQUIRE(y.shape() == x.shape());
  for (int64_t r = 0; r < 6; ++r) {
    double z = 0, s = 0;
    for (int64_t j = 0; j < 7; ++j) z += std::exp(double(x[r * 7 + j]) - x[r * 7]);
    for (int64_t j = 0; j < 7; ++j) {
      CHECK(y[r * 7 + j] == Approx(std::exp(double(x[r * 7 + j]) - x[r * 7]) / z).margin(1e-6));
      s += y[r * 7 + j];
    }
    CHECK(s == Approx(1.0).margin(1e-6));
  }
}

TEST_CASE("log_softmax equals log of softmax", "[core]") {
  Tensor x = random_tensor({5, 8}, 2, -6.0f, 6.0f);
  const Tensor ls = ops::log_softmax(Var(x)).value();
  const Tensor s = ops::softmax(Var(x)).value();
  for (int64_t i = 0; i < x.numel(); ++i)
    CHECK(ls[i] == Approx(std::log(double(s[i]))).margin(1e-5));
  x[0] = 500.0f;  // stays finite where log(softmax) would give -inf for the other entries
  const Tensor big = ops::log_softmax(Var(x)).value();
  for (int64_t j = 0; j < 8; ++j) CHECK(std::isfinite(big[j]));
  CHECK(big[1] == Approx(double(x[1]) - 500.0).margin(1e-3));
}

TEST_CASE("softmax rejects an empty last axis", "[core]") {
  CHECK_THROWS_AS(ops::softmax(Var(Tensor({3, 0}))), Error);
  CHECK_THROWS_AS(ops::log_softmax(Var(Tensor::scalar(1.0f))), Error);
}

TEST_CASE("softmax and log_softmax gradients", "[core][grad]") {
  const Tensor x = random_tensor({3, 2, 5}, 3, -2.0f, 2.0f);
  auto s = check_gradients([](const std::vector<Var>& v) { return ops::softmax(v[0]); }, {x});
  INFO(s.report);
  CHECK(s.ok);
  auto l = check_gradients([](const std::vector<Var>& v) { return ops::log_softmax(v[0]); }, {x});
  INFO(l.report);
  CHECK(l.ok);
}
