#include <catch2/catch.hpp>
#include <cmath>

#include "attend/core/error.hpp"
#include "attend/core/ops/batch_norm.hpp"
#include "attend/core/parallel.hpp"
#include "grad_check.hpp"

using namespace attend;
using attend::testing::check_gradients;
using attend::testing::random_tensor;

TEST_CASE("batch_norm columns match a naive reference and report the batch statistics", "[core]") {
  const int64_t n = 9, c = 5;
  const Tensor x = random_tensor({n, c}, 1, -3.0f, 5.0f);
  const Tensor gamma = random_tensor({c}, 2), beta = random_tensor({c}, 3);
  ops::BatchStatistics stats;
  const Tensor y = ops::batch_norm(Var(x), Var(gamma), Var(beta), 1e-3f, &stats).value();
  for (int64_t j = 0; j < c; ++j) {
    double mu = 0, var = 0;
    for (int64_t r = 0; r < n; ++r) mu += x[r * c + j] / double(n);
    for (int64_t r = 0; r < n; ++r) var += (x[r * c + j] - mu) * (x[r * c + j] - mu) / double(n);
    CHECK(stats.mean[j] == Approx(mu).margin(1e-6));
    CHECK(stats.variance[j] == Approx(var).margin(1e-5));
    for (int64_t r = 0; r < n; ++r) {
      const double ref = (x[r * c + j] - mu) / std::sqrt(var + 1e-3) * gamma[j] + beta[j];
      CHECK(y[r * c + j] == Approx(ref).margin(1e-5));
    }
  }
}

TEST_CASE("batch_norm checks its input and affine shapes", "[core]") {
  CHECK_THROWS_AS(ops::batch_norm(Var(Tensor({2, 4})), Var(Tensor({3})), Var(Tensor({4}))), Error);
  CHECK_THROWS_AS(ops::batch_norm(Var(Tensor({2, 4})), Var(Tensor({4})), Var()), Error);
  CHECK_THROWS_AS(ops::batch_norm(Var(Tensor({2, 3, 4})), Var(Tensor({4})), Var(Tensor({4}))), Error);
}

TEST_CASE("batch_norm gradients against finite differences", "[core][grad]") {
  const Tensor x = random_tensor({7, 4}, 4, -2.0f, 2.0f);
  const Tensor gamma = random_tensor({4}, 5, 0.5f, 1.5f), beta = random_tensor({4}, 6);
  auto full = check_gradients([](const std::vector<Var>& v) { return ops::batch_norm(v[0], v[1], v[2]); }, {x, gamma, beta});
  INFO(full.report);
  CHECK(full.ok);
}

TEST_CASE("batch_norm forward and gradients are bit-identical for 1 and 3 threads", "[core]") {
  // 4000 rows of 12: several row blocks of the column sums and of the elementwise passes.
  const Tensor x = random_tensor({4000, 12}, 7, -4.0f, 4.0f);
  const Tensor gamma = random_tensor({12}, 8), beta = random_tensor({12}, 9);
  const Tensor seed_grad = random_tensor({4000, 12}, 10);
  auto run = [&](int threads) {
    const int before = num_threads();
    set_num_threads(threads);
    Var xv(x, true), g(gamma, true), b(beta, true);
    ops::BatchStatistics stats;
    Var y = ops::batch_norm(xv, g, b, 1e-5f, &stats);
    y.backward(seed_grad);
    set_num_threads(before);
    return std::vector<Tensor>{y.value(), xv.grad(), g.grad(), b.grad(), stats.mean, stats.variance};
  };
  const auto one = run(1), three = run(3);
  for (std::size_t i = 0; i < one.size(); ++i) CHECK(bitwise_equal(one[i], three[i]));
}
