#include <catch2/catch.hpp>

#include "attend/core/ops/matmul.hpp"
#include "grad_check.hpp"

using namespace attend;
using attend::testing::check_gradients;
using attend::testing::random_tensor;

namespace {
// y = x * x with a backward that has the wrong sign, and one that forgets the factor 2.
Var square_wrong_sign(const Var& x) {
  Tensor out = x.value();
  for (float& v : out) v = v * v;
  return Var::from_op(std::move(out), {x}, [x](const Tensor&, const Tensor& g) {
    Tensor& gx = x.grad_mut();
    for (int64_t i = 0; i < g.numel(); ++i) gx[i] -= 2.0f * x.value()[i] * g[i];
  });
}
Var square_missing_term(const Var& x) {
  Tensor out = x.value();
  for (float& v : out) v = v * v;
  return Var::from_op(std::move(out), {x}, [x](const Tensor&, const Tensor& g) {
    Tensor& gx = x.grad_mut();
    for (int64_t i = 0; i < g.numel(); ++i) gx[i] += x.value()[i] * g[i];
  });
}
Var square(const Var& x) {
  Tensor out = x.value();
  for (float& v : out) v = v * v;
  return Var::from_op(std::move(out), {x}, [x](const Tensor&, const Tensor& g) {
    Tensor& gx = x.grad_mut();
    for (int64_t i = 0; i < g.numel(); ++i) gx[i] += 2.0f * x.value()[i] * g[i];
  });
}
}  // namespace

TEST_CASE("gradient check catches a broken backward", "[core][grad]") {
  const std::vector<Tensor> in{random_tensor({3, 4}, 1)};
  CHECK(check_gradients([](const std::vector<Var>& v) { return square(v[0]); }, in).ok);
  CHECK_FALSE(check_gradients([](const std::vector<Var>& v) { return square_wrong_sign(v[0]); }, in).ok);
  CHECK_FALSE(check_gradients([](const std::vector<Var>& v) { return square_missing_term(v[0]); }, in).ok);
}
