#include <catch2/catch.hpp>

#include "attend/core/error.hpp"
#include "attend/core/ops/reduction.hpp"
#include "attend/core/parallel.hpp"
#include "grad_check.hpp"

using namespace attend;
using attend::testing::check_gradients;
using attend::testing::random_tensor;

TEST_CASE("sum and mean match a double loop", "[core]") {
  const Tensor x = random_tensor({50, 1000}, 1);
  double s = 0;
  for (float v : x) s += v;
  const Var total = ops::sum(Var(x));
  CHECK(total.shape() == Shape{});
  CHECK(total.value().item() == Approx(s).margin(1e-3));
  CHECK(ops::mean(Var(x)).value().item() == Approx(s / x.numel()).margin(1e-7));
  CHECK_THROWS_AS(ops::mean(Var(Tensor({0, 3}))), Error);
  CHECK(ops::sum(Var(Tensor({0}))).value().item() == 0.0f);
}

TEST_CASE("sum and mean gradients", "[core][grad]") {
  auto s = check_gradients([](const std::vector<Var>& v) { return ops::sum(v[0]); },
                           {random_tensor({3, 4}, 2)});
  INFO(s.report);
  CHECK(s.ok);
  auto m = check_gradients([](const std::vector<Var>& v) { return ops::mean(v[0]); },
                           {random_tensor({2, 3, 2}, 3)});
  INFO(m.report);
  CHECK(m.ok);
}

TEST_CASE("sum is bit-identical for 1 and 2 threads", "[core]") {
  const Tensor x = random_tensor({1 << 20}, 4, -1.0f, 3.0f);
  const int before = num_threads();
  set_num_threads(1);
  const Tensor one = ops::sum(Var(x)).value();
  set_num_threads(2);
  const Tensor two = ops::sum(Var(x)).value();
  set_num_threads(before);
  CHECK(bitwise_equal(one, two));
}
