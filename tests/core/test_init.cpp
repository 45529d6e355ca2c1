#include <catch2/catch.hpp>

#include <cmath>

#include "attend/core/error.hpp"
#include "attend/core/init.hpp"

using namespace attend;

namespace {
struct Moments {
  double mean = 0.0, var = 0.0, min = 1e30, max = -1e30;
};
Moments moments(const Tensor& t) {
  Moments m;
  for (float x : t) {
    m.mean += x;
    m.min = std::min<double>(m.min, x);
    m.max = std::max<double>(m.max, x);
  }
  m.mean /= double(t.numel());
  for (float x : t) m.var += (x - m.mean) * (x - m.mean);
  m.var /= double(t.numel());
  return m;
}
}  // namespace

TEST_CASE("uniform initialisers stay in their bounds with the right variance", "[core]") {
  Rng rng(1);
  const double a = std::sqrt(6.0 / (30 + 50));
  const Tensor g = init::glorot_uniform({200, 100}, 30, 50, rng);
  CHECK(g.shape() == Shape{200, 100});
  const Moments m = moments(g);
  CHECK(m.min >= -a);
  CHECK(m.max < a);
  CHECK(m.max > 0.99 * a);  // the whole range is used
  CHECK(m.mean == Approx(0.0).margin(0.01));
  CHECK(m.var == Approx(a * a / 3).epsilon(0.03));  // variance of U(-a, a)

  const double h = std::sqrt(6.0 / 40);
  const Moments hm = moments(init::he_uniform({20000}, 40, rng));
  CHECK(hm.min >= -h);
  CHECK(hm.max < h);
  CHECK(hm.var == Approx(h * h / 3).epsilon(0.03));
}

TEST_CASE("normal initialisers have the right variance", "[core]") {
  Rng rng(2);
  const Moments g = moments(init::glorot_normal({20000}, 30, 50, rng));
  CHECK(g.mean == Approx(0.0).margin(0.01));
  CHECK(g.var == Approx(2.0 / 80).epsilon(0.05));
  const Moments h = moments(init::he_normal({20000}, 8, rng));
  CHECK(h.var == Approx(2.0 / 8).epsilon(0.05));
  const Moments n = moments(init::normal({20000}, 0.3, rng));
  CHECK(n.var == Approx(0.09).epsilon(0.05));
}

TEST_CASE("initialisers depend only on the seed", "[core]") {
  Rng r1(7), r2(7), r3(8);
  const Tensor a = init::glorot_uniform({10, 10}, 10, 10, r1);
  const Tensor b = init::glorot_uniform({10, 10}, 10, 10, r2);
  const Tensor c = init::glorot_uniform({10, 10}, 10, 10, r3);
  CHECK(bitwise_equal(a, b));
  CHECK_FALSE(bitwise_equal(a, c));
  for (float x : init::zeros({3, 2})) CHECK(x == 0.0f);
  for (float x : init::ones({4})) CHECK(x == 1.0f);
  CHECK_THROWS_AS(init::he_normal({2}, 0, r1), Error);
}
