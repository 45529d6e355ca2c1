#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "attend/core/fast_sigmoid.hpp"
#include "worst_relative_error.hpp"

using namespace attend;

namespace {
double reference_sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
}  // namespace

TEST_CASE("sigmoid_approx stays within 2.5e-7 relative error of a double reference", "[core]") {
  // Every 2^-10 step over [-87, 87], plus the float neighbours of 0 and of the ends.
  std::vector<float> xs;
  for (int i = -87 * 1024; i <= 87 * 1024; ++i) xs.push_back(static_cast<float>(i) / 1024.0f);
  for (float x : {-87.0f, 87.0f, 0.0f})
    for (int step = 0; step < 64; ++step) {
      xs.push_back(x);
      x = std::nextafter(x, 1.0f);
    }
  const testing::WorstRelativeError worst = testing::worst_relative_error(xs, sigmoid_approx, reference_sigmoid);
  INFO("max relative error " << worst.error << " at x = " << worst.at);
  CHECK(worst.error < 2.5e-7);
  CHECK(worst.error > 0.0);  // the bound is measured, not met by a bit-exact libm call
}

TEST_CASE("sigmoid_approx saturates without overflow and passes NaN through", "[core]") {
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(sigmoid_approx(100.0f) == 1.0f);
  CHECK(sigmoid_approx(inf) == 1.0f);
  CHECK(sigmoid_approx(-100.0f) >= 0.0f);
  CHECK(sigmoid_approx(-100.0f) < 1e-37f);
  CHECK(sigmoid_approx(-inf) < 1e-37f);
  CHECK(std::isnan(sigmoid_approx(std::numeric_limits<float>::quiet_NaN())));
}
