#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>

#include "attend/core/error.hpp"
#include "attend/core/ops/layer_norm.hpp"
#include "grad_check.hpp"
#include "fused_against_plain.hpp"

using namespace attend;
using attend::testing::check_gradients;
using attend::testing::random_tensor;

TEST_CASE("layer_norm rows have mean 0 and variance 1 and match a naive reference", "[core]") {
  const Tensor x = random_tensor({4, 3, 16}, 1, -3.0f, 5.0f);
  const Tensor plain = ops::layer_norm(Var(x)).value();
  const Tensor gamma = random_tensor({16}, 2), beta = random_tensor({16}, 3);
  const Tensor affine = ops::layer_norm(Var(x), Var(gamma), Var(beta), 1e-3f).value();
  for (int64_t r = 0; r < 12; ++r) {
    double mu = 0, var = 0, m = 0, v = 0;
    for (int64_t j = 0; j < 16; ++j) mu += x[r * 16 + j] / 16.0;
    for (int64_t j = 0; j < 16; ++j) var += (x[r * 16 + j] - mu) * (x[r * 16 + j] - mu) / 16.0;
    for (int64_t j = 0; j < 16; ++j) m += plain[r * 16 + j] / 16.0;
    for (int64_t j = 0; j < 16; ++j) v += (plain[r * 16 + j] - m) * (plain[r * 16 + j] - m) / 16.0;
    CHECK(m == Approx(0.0).margin(1e-6));
    CHECK(v == Approx(var / (var + 1e-5)).margin(1e-5));
    for (int64_t j = 0; j < 16; ++j) {
      const double ref = (x[r * 16 + j] - mu) / std::sqrt(var + 1e-3) * gamma[j] + beta[j];
      CHECK(affine[r * 16 + j] == Approx(ref).margin(1e-5));
    }
  }
}

TEST_CASE("layer_norm checks its affine shapes", "[core]") {
  CHECK_THROWS_AS(ops::layer_norm(Var(Tensor({2, 4})), Var(Tensor({3}))), Error);
  CHECK_THROWS_AS(ops::layer_norm(Var(Tensor({2, 4})), Var(), Var(Tensor({4, 1}))), Error);
}

TEST_CASE("layer_norm gradients", "[core][grad]") {
  const Tensor x = random_tensor({5, 6}, 4, -2.0f, 2.0f);
  const Tensor gamma = random_tensor({6}, 5, 0.5f, 1.5f), beta = random_tensor({6}, 6);
  auto full =
      check_gradients([](const std::vector<Var>& v) { return ops::layer_norm(v[0], v[1], v[2]); },
                      {x, gamma, beta});
  INFO(full.report);
  CHECK(full.ok);
  auto plain = check_gradients([](const std::vector<Var>& v) { return ops::layer_norm(v[0]); },
                               {random_tensor({2, 3, 4}, 7)});
  INFO(plain.report);
  CHECK(plain.ok);
  auto scale_only = check_gradients(
      [](const std::vector<Var>& v) { return ops::layer_norm(v[0], v[1], Var()); }, {x, gamma});
  INFO(scale_only.report);
  CHECK(scale_only.ok);
}

TEST_CASE("layer_norm with a row length that is not a whole number of lanes: gradients", "[core][grad]") {
  // C = 37: two full lanes of 16 and a tail of 5 in every row statistic
  const Tensor x = random_tensor({3, 37}, 8, -2.0f, 2.0f);
  const Tensor gamma = random_tensor({37}, 9, 0.5f, 1.5f), beta = random_tensor({37}, 10);
  auto r = check_gradients([](const std::vector<Var>& v) { return ops::layer_norm(v[0], v[1], v[2]); },
                           {x, gamma, beta});
  INFO(r.report);
  CHECK(r.ok);
}

TEST_CASE("layer_norm: 1 and 2 threads give the same bits over several row blocks", "[core]") {
  // 700 rows: blocks of 256, 256 and 188 rows, each with its own dgamma / dbeta partial
  const std::vector<Tensor> inputs = {random_tensor({700, 37}, 11, -3.0f, 3.0f), random_tensor({37}, 12),
                                      random_tensor({37}, 13)};
  auto f = [](const std::vector<Var>& v) { return ops::layer_norm(v[0], v[1], v[2]); };
  testing::require_same_bits_on_1_and_2_threads(f, inputs);
}
