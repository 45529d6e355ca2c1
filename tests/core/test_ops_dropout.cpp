#include <catch2/catch.hpp>

#include "attend/core/error.hpp"
#include "attend/core/ops/dropout.hpp"
#include "attend/core/parallel.hpp"
#include "grad_check.hpp"

using namespace attend;
using attend::testing::check_gradients;
using attend::testing::random_tensor;

TEST_CASE("dropout keeps about 1 - p of the elements and scales them", "[core]") {
  const Tensor x = random_tensor({200, 500}, 1, 0.5f, 1.5f);  // no zeros, so a zero means dropped
  const float p = 0.3f;
  const Tensor y = ops::dropout(Var(x), p, 42, true).value();
  int64_t kept = 0;
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (y[i] != 0.0f) {
      ++kept;
      CHECK(y[i] == x[i] * (1.0f / (1.0f - p)));
    }
  }
  CHECK(double(kept) / x.numel() == Approx(0.7).margin(0.01));
}

TEST_CASE("dropout masks follow the seed and not the thread count", "[core]") {
  const Tensor x = random_tensor({300, 200}, 2, 0.5f, 1.5f);
  const int before = num_threads();
  set_num_threads(1);
  const Tensor one = ops::dropout(Var(x), 0.5f, 7, true).value();
  set_num_threads(2);
  const Tensor two = ops::dropout(Var(x), 0.5f, 7, true).value();
  const Tensor other = ops::dropout(Var(x), 0.5f, 8, true).value();
  set_num_threads(before);
  CHECK(bitwise_equal(one, two));
  int64_t differ = 0;
  for (int64_t i = 0; i < x.numel(); ++i) differ += (one[i] == 0.0f) != (other[i] == 0.0f);
  CHECK(differ > x.numel() / 4);  // independent masks disagree on about half the elements
}

TEST_CASE("dropout is the identity when not training or p == 0", "[core]") {
  const Var x(random_tensor({3, 4}, 3), true);
  CHECK(ops::dropout(x, 0.5f, 1, false).id() == x.id());
  CHECK(ops::dropout(x, 0.0f, 1, true).id() == x.id());
  CHECK_THROWS_AS(ops::dropout(x, 1.0f, 1, true), Error);
  CHECK_THROWS_AS(ops::dropout(x, -0.1f, 1, false), Error);
}

TEST_CASE("dropout gradient", "[core][grad]") {
  auto r =
      check_gradients([](const std::vector<Var>& v) { return ops::dropout(v[0], 0.4f, 99, true); },
                      {random_tensor({6, 7}, 4)});
  INFO(r.report);
  CHECK(r.ok);
}
