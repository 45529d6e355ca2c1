#include <catch2/catch.hpp>

#include "attend/core/ops/activation.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/ops/matmul.hpp"
#include "attend/core/recompute.hpp"
#include "grad_check.hpp"

using namespace attend;

namespace {

// tanh(x W) * y: a small sub-graph with a parameter W and two inputs.
Var body(const Var& w, const std::vector<Var>& xs) { return ops::mul(ops::tanh(ops::matmul(xs[0], w)), xs[1]); }

}  // namespace

TEST_CASE("recompute gives the same output and gradients as the plain sub-graph", "[core][grad]") {
  const Var w(testing::random_tensor({4, 3}, 1), true);
  const Tensor x = testing::random_tensor({5, 4}, 2), y = testing::random_tensor({5, 3}, 3);
  const Tensor seed = testing::random_tensor({5, 3}, 4);
  auto run = [&](bool checkpoint) {
    w.zero_grad();
    std::vector<Var> in = {Var(x, true), Var(y, true)};
    const RecomputeFn f = [&w](const std::vector<Var>& v) { return body(w, v); };
    Var out = checkpoint ? recompute(f, in, {w}) : f(in);
    out.backward(seed);
    return std::vector<Tensor>{out.value(), in[0].grad(), in[1].grad(), w.grad()};
  };
  const auto plain = run(false), again = run(true);
  for (std::size_t i = 0; i < plain.size(); ++i) CHECK(bitwise_equal(plain[i], again[i]));
}

TEST_CASE("recompute: finite differences, and parameters-only gradients", "[core][grad]") {
  const Var w(testing::random_tensor({4, 3}, 5), true);
  const RecomputeFn f = [&w](const std::vector<Var>& v) { return body(w, v); };
  const auto r = testing::check_gradients([&](const std::vector<Var>& v) { return recompute(f, v, {w}); },
                                          {testing::random_tensor({5, 4}, 6), testing::random_tensor({5, 3}, 7)});
  INFO(r.report);
  CHECK(r.ok);
  // Inputs without gradients: the parameter still gets one.
  w.zero_grad();
  Var out = recompute(f, {Var(testing::random_tensor({5, 4}, 8)), Var(testing::random_tensor({5, 3}, 9))}, {w});
  REQUIRE(out.requires_grad());
  out.backward(Tensor({5, 3}, 1.0f));
  CHECK(w.has_grad());
}
