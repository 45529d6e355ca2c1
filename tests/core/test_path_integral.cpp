// integrate_from_zero (integrated gradients' path integral) on functions whose integrated
// gradients are known in closed form.
#include <catch2/catch.hpp>

#include <cmath>

#include "attend/core/error.hpp"
#include "attend/core/path_integral.hpp"

using namespace attend;

namespace {

// f(x) = sum_i c_i x_i^3 at a batch of points [copies * m]: df/dx_i = 3 c_i x_i^2.
PathGradient cubic(const Tensor& points, int64_t copies, const std::vector<double>& c) {
  const auto m = static_cast<int64_t>(c.size());
  REQUIRE(points.numel() == copies * m);
  PathGradient g{0.0, Tensor(points.shape())};
  for (int64_t k = 0; k < copies; ++k)
    for (int64_t i = 0; i < m; ++i) {
      const double x = points[k * m + i];
      g.value += c[i] * x * x * x;
      g.gradient[k * m + i] = static_cast<float>(3.0 * c[i] * x * x);
    }
  return g;
}

// f at one point, from cubic.
double cubic_value(const Tensor& point, const std::vector<double>& c) { return cubic(point, 1, c).value; }

}  // namespace

TEST_CASE("path integral: a separable f gets IG_i = f_i(x_i) - f_i(0), the gap shrinks as 1/S^2", "[core]") {
  const std::vector<double> c = {1.0, -2.0, 0.5, 3.0};
  const Tensor x({2, 2}, std::vector<float>{0.8f, -1.1f, 1.5f, 0.3f});
  const PathGradientFn f = [&](const Tensor& points, int64_t copies) { return cubic(points, copies, c); };
  const PathValueFn value = [&](const Tensor& point) { return cubic_value(point, c); };
  double previous_gap = 0.0;
  for (const int steps : {4, 8, 16}) {
    const PathIntegral ig = integrate_from_zero(x, PathSteps{QuadratureKind::kMidpoint, steps}, 3, value, f);
    REQUIRE(ig.attribution.shape() == x.shape());
    double sum = 0.0, exact = 0.0;
    for (int64_t i = 0; i < 4; ++i) {
      const double want = c[i] * std::pow(x[i], 3);  // the integral of 3 c x^3 a^2 da
      CHECK(ig.attribution[i] == Approx(want).epsilon(0.3 / (steps * steps)));
      sum += ig.attribution[i];
      exact += want;
    }
    CHECK(ig.value == Approx(exact).epsilon(1e-6));
    CHECK(ig.baseline_value == 0.0);
    CHECK(ig.completeness_gap == Approx(sum - exact).margin(1e-6));
    // The midpoint rule gives 1/3 - 1 / (12 S^2) for the integral of a^2: IG undershoots by
    // a quarter of f(x) / S^2.
    CHECK(ig.completeness_gap == Approx(-exact / (4.0 * steps * steps)).epsilon(1e-3));
    if (steps > 4) CHECK(std::abs(ig.completeness_gap) < std::abs(previous_gap) / 3.5);
    previous_gap = ig.completeness_gap;
  }
}

TEST_CASE("path integral: Gauss-Legendre with 2 points is exact for a cubic f (a quadratic integrand)", "[core]") {
  const std::vector<double> c = {1.0, -2.0, 0.5, 3.0};
  const Tensor x({2, 2}, std::vector<float>{0.8f, -1.1f, 1.5f, 0.3f});
  const PathGradientFn f = [&](const Tensor& points, int64_t copies) { return cubic(points, copies, c); };
  const PathValueFn value = [&](const Tensor& point) { return cubic_value(point, c); };
  const PathIntegral ig = integrate_from_zero(x, PathSteps{QuadratureKind::kGaussLegendre, 2}, 1, value, f);
  const PathIntegral midpoint = integrate_from_zero(x, PathSteps{QuadratureKind::kMidpoint, 2}, 1, value, f);
  for (int64_t i = 0; i < 4; ++i) CHECK(ig.attribution[i] == Approx(c[i] * std::pow(x[i], 3)).epsilon(1e-6));
  CHECK(std::abs(ig.completeness_gap) < 1e-5);
  CHECK(std::abs(midpoint.completeness_gap) > 0.05);
}

TEST_CASE("path integral: the batch size does not change the bits, progress counts the steps, f(x) and f(0) take no gradient", "[core]") {
  const std::vector<double> c = {0.3, -1.7, 2.2};
  const Tensor x({3}, std::vector<float>{0.4f, 1.3f, -0.9f});
  const PathGradientFn f = [&](const Tensor& points, int64_t copies) { return cubic(points, copies, c); };
  const PathValueFn value = [&](const Tensor& point) { return cubic_value(point, c); };
  std::vector<int64_t> done;
  const PathIntegral one = integrate_from_zero(x, PathSteps{QuadratureKind::kMidpoint, 10}, 1, value, f, [&](int64_t d) { done.push_back(d); });
  CHECK(done == std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  done.clear();
  const PathIntegral four = integrate_from_zero(x, PathSteps{QuadratureKind::kMidpoint, 10}, 4, value, f, [&](int64_t d) { done.push_back(d); });
  CHECK(done == std::vector<int64_t>{4, 8, 10});
  // f(input) and f(0) come from `value`: the gradient runs once per batch of steps only.
  int gradient_calls = 0, value_calls = 0;
  const PathGradientFn counted = [&](const Tensor& points, int64_t copies) { ++gradient_calls; return f(points, copies); };
  const PathValueFn counted_value = [&](const Tensor& point) { ++value_calls; return value(point); };
  const PathIntegral counted_run = integrate_from_zero(x, PathSteps{QuadratureKind::kMidpoint, 10}, 4, counted_value, counted);
  CHECK(gradient_calls == 3);
  CHECK(value_calls == 2);
  CHECK(counted_run.value == Approx(value(x)).epsilon(1e-12));
  CHECK(bitwise_equal(one.attribution, four.attribution));
  CHECK(one.completeness_gap == four.completeness_gap);
  CHECK_THROWS_AS(integrate_from_zero(x, PathSteps{QuadratureKind::kMidpoint, 0}, 1, value, f), Error);
  const PathGradientFn wrong = [](const Tensor&, int64_t) { return PathGradient{0.0, Tensor({1})}; };
  CHECK_THROWS_AS(integrate_from_zero(x, PathSteps{QuadratureKind::kMidpoint, 2}, 1, value, wrong), Error);
}

TEST_CASE("path integral: a given f(input) is used as given and value runs for f(0) only", "[core]") {
  const std::vector<double> c = {0.3, -1.7, 2.2};
  const Tensor x({3}, std::vector<float>{0.4f, 1.3f, -0.9f});
  const PathGradientFn f = [&](const Tensor& points, int64_t copies) { return cubic(points, copies, c); };
  std::vector<float> asked;  // the first entry of each point value is called on
  const PathValueFn value = [&](const Tensor& point) {
    asked.push_back(point[0]);
    return cubic_value(point, c);
  };
  const PathSteps path{QuadratureKind::kMidpoint, 10};
  const PathIntegral computed = integrate_from_zero(x, path, 4, value, f);
  CHECK(asked == std::vector<float>{0.4f, 0.0f});
  asked.clear();
  const PathIntegral given = integrate_from_zero(x, computed.value, path, 4, value, f);
  CHECK(asked == std::vector<float>{0.0f});
  CHECK(bitwise_equal(given.attribution, computed.attribution));
  CHECK(given.completeness_gap == computed.completeness_gap);
  // A different f(input) moves the gap by the difference, and nothing else.
  const PathIntegral shifted = integrate_from_zero(x, computed.value + 0.25, path, 4, value, f);
  CHECK(shifted.value == computed.value + 0.25);
  CHECK(shifted.completeness_gap == Approx(computed.completeness_gap - 0.25).epsilon(1e-12));
  CHECK(bitwise_equal(shifted.attribution, computed.attribution));
}

TEST_CASE("path integral: a gap bound refines the rule until the gap is within it, and the cap stops it", "[core]") {
  const std::vector<double> c = {1.0, -2.0, 0.5, 3.0};
  const Tensor x({2, 2}, std::vector<float>{0.8f, -1.1f, 1.5f, 0.3f});
  const PathGradientFn f = [&](const Tensor& points, int64_t copies) { return cubic(points, copies, c); };
  const PathValueFn value = [&](const Tensor& point) { return cubic_value(point, c); };
  // Midpoint at 2 points undershoots by f(x) / 16; 1e-3 needs 18 points (2 -> 6 -> 18).
  std::vector<int64_t> done;
  const PathIntegral refined = integrate_from_zero(x, PathSteps{QuadratureKind::kMidpoint, 2, 1e-3, 1000}, 2, value, f,
                                                   [&](int64_t d) { done.push_back(d); });
  CHECK(refined.steps == 18);
  CHECK(std::abs(refined.completeness_gap) <= 1e-3 * std::abs(refined.value));
  CHECK(done.back() == 18);  // the old points' gradients are kept: 2 + 4 + 12 evaluations
  const PathIntegral direct = integrate_from_zero(x, PathSteps{QuadratureKind::kMidpoint, 18}, 2, value, f);
  for (int64_t i = 0; i < 4; ++i) CHECK(refined.attribution[i] == Approx(direct.attribution[i]).epsilon(1e-6));
  const PathIntegral capped = integrate_from_zero(x, PathSteps{QuadratureKind::kMidpoint, 2, 1e-3, 10}, 2, value, f);
  CHECK(capped.steps == 6);
  CHECK(std::abs(capped.completeness_gap) > 1e-3 * std::abs(capped.value));
}
