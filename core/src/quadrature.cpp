#include "attend/core/quadrature.hpp"

#include <cmath>
#include <numbers>

#include "attend/core/error.hpp"

namespace attend {

namespace {

QuadratureRule midpoint_rule(int s) {
  QuadratureRule rule;
  for (int k = 0; k < s; ++k) {
    rule.points.push_back((k + 0.5) / s);
    rule.weights.push_back(1.0 / s);
  }
  return rule;
}

/// Gauss-Legendre nodes as the roots of the Legendre polynomial P_S, found by Newton's method
/// from Tricomi's estimate cos(pi (k + 3/4) / (S + 1/2)); P_S and P_S' by the three-term
/// recurrence (Abramowitz and Stegun 22.7.10). Weights 2 / ((1 - x^2) P_S'(x)^2) on [-1, 1],
/// mapped to [0, 1] by a = (1 - x) / 2 (so the points increase) and halved.
QuadratureRule gauss_legendre_rule(int s) {
  QuadratureRule rule;
  rule.points.resize(static_cast<std::size_t>(s));
  rule.weights.resize(static_cast<std::size_t>(s));
  for (int k = 0; k < s; ++k) {
    double x = std::cos(std::numbers::pi * (k + 0.75) / (s + 0.5));
    double derivative = 0.0;
    for (int iteration = 0; iteration < 100; ++iteration) {
      double p0 = 1.0, p1 = x;  // P_0, P_1
      for (int n = 2; n <= s; ++n) {
        const double p2 = ((2.0 * n - 1.0) * x * p1 - (n - 1.0) * p0) / n;
        p0 = p1;
        p1 = p2;
      }
      derivative = s * (x * p1 - p0) / (x * x - 1.0);  // p1 = P_S, p0 = P_{S-1}
      const double step = p1 / derivative;
      x -= step;
      if (std::abs(step) < 1e-15) break;
    }
    rule.points[static_cast<std::size_t>(k)] = (1.0 - x) / 2.0;
    rule.weights[static_cast<std::size_t>(k)] = 1.0 / ((1.0 - x * x) * derivative * derivative);
  }
  return rule;
}

}  // namespace

QuadratureRule quadrature_rule(QuadratureKind kind, int points) {
  if (points < 1) throw InputError("a quadrature rule needs at least 1 point, got " + std::to_string(points));
  return kind == QuadratureKind::kMidpoint ? midpoint_rule(points) : gauss_legendre_rule(points);
}

const std::vector<std::string>& quadrature_names() {
  static const std::vector<std::string> names = {"midpoint", "gauss-legendre"};
  return names;
}

QuadratureKind quadrature_from_name(const std::string& name) {
  if (name == "midpoint") return QuadratureKind::kMidpoint;
  if (name == "gauss-legendre") return QuadratureKind::kGaussLegendre;
  throw InputError("unknown quadrature rule '" + name + "' (known: midpoint, gauss-legendre)");
}

std::string quadrature_name(QuadratureKind kind) {
  return kind == QuadratureKind::kMidpoint ? "midpoint" : "gauss-legendre";
}

}  // namespace attend
