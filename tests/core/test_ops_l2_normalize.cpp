#include <catch2/catch.hpp>
#include <cmath>

#include "attend/core/error.hpp"
#include "attend/core/ops/l2_normalize.hpp"
#include "attend/core/parallel.hpp"
#include "grad_check.hpp"

using namespace attend;
using attend::testing::check_gradients;
using attend::testing::random_tensor;

TEST_CASE("l2_normalize divides each row by its Euclidean norm, zero rows stay zero", "[core]") {
  Tensor x = random_tensor({3, 4, 5}, 1, -3.0f, 2.0f);
  for (int64_t j = 0; j < 5; ++j) x[7 * 5 + j] = 0.0f;  // row 7 is zero
  const Tensor y = ops::l2_normalize(Var(x)).value();
  for (int64_t r = 0; r < 12; ++r) {
    double norm = 0;
    for (int64_t j = 0; j < 5; ++j) norm += double(x[r * 5 + j]) * x[r * 5 + j];
    norm = std::sqrt(norm);
    for (int64_t j = 0; j < 5; ++j) {
      const double ref = r == 7 ? 0.0 : x[r * 5 + j] / norm;
      CHECK(y[r * 5 + j] == Approx(ref).margin(1e-6));
    }
  }
  CHECK_THROWS_AS(ops::l2_normalize(Var(Tensor({2, 0}))), Error);
}

TEST_CASE("l2_normalize gradients", "[core][grad]") {
  auto rows = check_gradients([](const std::vector<Var>& v) { return ops::l2_normalize(v[0]); },
                              {random_tensor({6, 7}, 2, -2.0f, 2.0f)});
  INFO(rows.report);
  CHECK(rows.ok);
  // Below eps the row is only scaled by 1 / eps: the gradient is dy / eps.
  const Tensor tiny = random_tensor({2, 3}, 3, -1e-3f, 1e-3f);
  auto scaled = check_gradients([](const std::vector<Var>& v) { return ops::l2_normalize(v[0], 1.0f); }, {tiny});
  INFO(scaled.report);
  CHECK(scaled.ok);
}

TEST_CASE("l2_normalize is bit-identical for 1 and 2 threads", "[core]") {
  const Tensor x = random_tensor({5000, 33}, 4);
  const Tensor seed_grad = random_tensor({5000, 33}, 5);
  auto run = [&](int threads) {
    const int before = num_threads();
    set_num_threads(threads);
    Var v(x, true);
    Var y = ops::l2_normalize(v);
    y.backward(seed_grad);
    set_num_threads(before);
    return std::make_pair(y.value(), v.grad());
  };
  const auto one = run(1), two = run(2);
  CHECK(bitwise_equal(one.first, two.first));
  CHECK(bitwise_equal(one.second, two.second));
}
