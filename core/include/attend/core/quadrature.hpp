#pragma once
/// Quadrature rules on [0, 1]: the points a_k and weights w_k of
///   integral over a in [0, 1] of g(a) da  ~  sum_k w_k g(a_k).
/// Used by integrated gradients (the path integral from the baseline to the input).

#include <string>
#include <vector>

namespace attend {

enum class QuadratureKind {
  kMidpoint,       ///< a_k = (k + 1/2) / S, w_k = 1 / S; error O(1/S^2) for a smooth g
  kGaussLegendre,  ///< exact for polynomials of degree <= 2S - 1
};

struct QuadratureRule {
  std::vector<double> points;   ///< [S] in (0, 1), increasing
  std::vector<double> weights;  ///< [S] positive, summing to 1
};

/// The S-point rule of `kind`; S >= 1 (attend::InputError otherwise).
QuadratureRule quadrature_rule(QuadratureKind kind, int points);

/// "midpoint", "gauss-legendre".
const std::vector<std::string>& quadrature_names();
/// The kind of a name; throws attend::InputError naming the known ones.
QuadratureKind quadrature_from_name(const std::string& name);
std::string quadrature_name(QuadratureKind kind);

}  // namespace attend
