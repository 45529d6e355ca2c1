#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "attend/core/fast_exp.hpp"
#include "worst_relative_error.hpp"

using namespace attend;

TEST_CASE("exp_approx stays within 2.5e-7 relative error of std::exp over [-87, 88]", "[core]") {
  // Every 2^-10 step, plus the float neighbours of the ends and of 0.
  std::vector<float> xs;
  for (int i = -87 * 1024; i <= 88 * 1024; ++i) xs.push_back(static_cast<float>(i) / 1024.0f);
  for (float x : {-87.0f, 88.0f, 0.0f}) {
    float below = x, above = x;
    for (int step = 0; step < 64; ++step) {
      xs.push_back(below = std::nextafter(below, -1000.0f));
      if (x < 88.0f) xs.push_back(above = std::nextafter(above, 1000.0f));
    }
  }
  std::erase_if(xs, [](float x) { return x < -87.0f; });
  const testing::WorstRelativeError worst =
      testing::worst_relative_error(xs, exp_approx, [](double x) { return std::exp(x); });
  INFO("max relative error " << worst.error << " at x = " << worst.at);
  CHECK(worst.error < 2.5e-7);
  CHECK(worst.error > 0.0);  // the bound is measured, not met by a bit-exact libm call
}

TEST_CASE("exp_approx underflows to exactly 0, stays close in the subnormal range, passes NaN",
          "[core]") {
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(exp_approx(-inf) == 0.0f);
  CHECK(exp_approx(-88.0f) == 0.0f);
  CHECK(exp_approx(-100.0f) == 0.0f);
  CHECK(exp_approx(-1e30f) == 0.0f);
  CHECK(exp_approx(-87.69f) == 0.0f);              // n = round(x / ln 2) = -127
  for (float x = -87.68f; x < -87.0f; x += 0.01f)  // results near or below FLT_MIN
    CHECK(std::fabs(static_cast<double>(exp_approx(x)) - std::exp(static_cast<double>(x))) < 1e-44);
  CHECK(exp_approx(-87.0f) > 0.0f);
  CHECK(std::isfinite(exp_approx(inf)));
  CHECK(exp_approx(88.0f) == exp_approx(1000.0f));
  CHECK(std::isnan(exp_approx(std::numeric_limits<float>::quiet_NaN())));
  CHECK(exp_approx(0.0f) == 1.0f);
}
