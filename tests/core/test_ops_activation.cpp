#include <catch2/catch.hpp>
#include <cmath>
#include <functional>

#include "attend/core/ops/activation.hpp"
#include "grad_check.hpp"

using namespace attend;
using attend::testing::check_gradients;
using attend::testing::random_tensor;

namespace {
/// Random values with |x| >= 0.1 (sign kept), so kinks at 0 are farther than the FD step.
Tensor away_from_zero(const Shape& shape, uint64_t seed) {
  Tensor t = random_tensor(shape, seed, -2.0f, 2.0f);
  for (float& v : t) v += v >= 0.0f ? 0.1f : -0.1f;
  return t;
}

void check_forward(const std::function<Var(const Var&)>& op,
                   const std::function<double(double)>& ref) {
  const Tensor x = away_from_zero({7, 9}, 1);
  const Tensor y = op(Var(x)).value();
  REQUIRE(y.shape() == x.shape());
  for (int64_t i = 0; i < x.numel(); ++i) CHECK(y[i] == Approx(ref(x[i])).margin(1e-6));
}

void check_grad(const std::function<Var(const Var&)>& op) {
  auto r = check_gradients([op](const std::vector<Var>& v) { return op(v[0]); },
                           {away_from_zero({4, 6}, 2)});
  INFO(r.report);
  CHECK(r.ok);
}
}  // namespace

TEST_CASE("activations match their formulas", "[core]") {
  check_forward([](const Var& x) { return ops::relu(x); },
                [](double v) { return v > 0 ? v : 0.0; });
  check_forward([](const Var& x) { return ops::elu(x, 1.5f); },
                [](double v) { return v > 0 ? v : 1.5 * (std::exp(v) - 1.0); });
  check_forward([](const Var& x) { return ops::leaky_relu(x); },
                [](double v) { return v > 0 ? v : 0.2 * v; });
  check_forward([](const Var& x) { return ops::sigmoid(x); },
                [](double v) { return 1.0 / (1.0 + std::exp(-v)); });
  check_forward([](const Var& x) { return ops::tanh(x); }, [](double v) { return std::tanh(v); });
}

TEST_CASE("sigmoid is stable for large inputs", "[core]") {
  const Tensor y = ops::sigmoid(Var(Tensor({4}, {-200.0f, -90.0f, 90.0f, 200.0f}))).value();
  for (float v : y) CHECK(std::isfinite(v));
  CHECK(y[0] == Approx(0.0).margin(1e-30));
  CHECK(y[3] == 1.0f);
}

TEST_CASE("activation gradients", "[core][grad]") {
  check_grad([](const Var& x) { return ops::relu(x); });
  check_grad([](const Var& x) { return ops::elu(x, 0.7f); });
  check_grad([](const Var& x) { return ops::leaky_relu(x, 0.2f); });
  check_grad([](const Var& x) { return ops::sigmoid(x); });
  check_grad([](const Var& x) { return ops::tanh(x); });
}
