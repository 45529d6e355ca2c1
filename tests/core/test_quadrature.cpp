#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

#include "attend/core/error.hpp"
#include "attend/core/quadrature.hpp"

using namespace attend;

namespace {
double integrate(const QuadratureRule& rule, int degree) {  // sum_k w_k a_k^degree
  double sum = 0.0;
  for (std::size_t k = 0; k < rule.points.size(); ++k) sum += rule.weights[k] * std::pow(rule.points[k], degree);
  return sum;
}
}  // namespace

TEST_CASE("Gauss-Legendre with S points integrates a^d exactly for d <= 2S - 1 and not for d = 2S (S <= 8)", "[core]") {
  for (int s : {1, 2, 3, 5, 8, 20, 50}) {
    const QuadratureRule rule = quadrature_rule(QuadratureKind::kGaussLegendre, s);
    REQUIRE(rule.points.size() == static_cast<std::size_t>(s));
    for (int d = 0; d <= 2 * s - 1; ++d) CHECK(integrate(rule, d) == Approx(1.0 / (d + 1)).epsilon(1e-12));
    // The error on a^(2S) is (S!)^4 / ((2S + 1) ((2S)!)^2): below double precision past S = 8.
    if (s <= 8) CHECK(std::abs(integrate(rule, 2 * s) - 1.0 / (2 * s + 1)) > 1e-14);
    for (std::size_t k = 0; k < rule.points.size(); ++k) {
      CHECK(rule.points[k] > 0.0);
      CHECK(rule.points[k] < 1.0);
      CHECK(rule.weights[k] > 0.0);
      if (k > 0) CHECK(rule.points[k] > rule.points[k - 1]);
    }
  }
}

TEST_CASE("the midpoint rule has equal weights and is exact only up to degree 1", "[core]") {
  const QuadratureRule rule = quadrature_rule(QuadratureKind::kMidpoint, 4);
  CHECK(rule.points == std::vector<double>{0.125, 0.375, 0.625, 0.875});
  CHECK(std::accumulate(rule.weights.begin(), rule.weights.end(), 0.0) == Approx(1.0));
  CHECK(integrate(rule, 1) == Approx(0.5));
  CHECK(std::abs(integrate(rule, 2) - 1.0 / 3.0) > 1e-3);
}

TEST_CASE("quadrature rules are named and refuse zero points", "[core]") {
  for (const std::string& name : quadrature_names()) CHECK(quadrature_name(quadrature_from_name(name)) == name);
  CHECK_THROWS_AS(quadrature_from_name("simpson"), InputError);
  CHECK_THROWS_AS(quadrature_rule(QuadratureKind::kGaussLegendre, 0), InputError);
}
