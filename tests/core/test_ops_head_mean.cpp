#include <catch2/catch.hpp>

#include "attend/core/ops/head_mean.hpp"
#include "grad_check.hpp"

using namespace attend;
using attend::testing::check_gradients;
using attend::testing::random_tensor;

TEST_CASE("head_mean averages heads, with gradient", "[core][grad]") {
  const Tensor x = random_tensor({5, 3, 4}, 1);
  const Tensor y = ops::head_mean(Var(x)).value();
  REQUIRE(y.shape() == Shape{5, 4});
  for (int64_t n = 0; n < 5; ++n)
    for (int64_t c = 0; c < 4; ++c) {
      const double mean = (double(x.at({n, 0, c})) + x.at({n, 1, c}) + x.at({n, 2, c})) / 3.0;
      CHECK(y.at({n, c}) == Approx(mean).margin(1e-6));
    }
  auto r = check_gradients([](const std::vector<Var>& v) { return ops::head_mean(v[0]); }, {x});
  INFO(r.report);
  CHECK(r.ok);
}
