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

/// One refinement of the S-point rule of a kind, for integrating adaptively while reusing the
/// integrand's values where the rule allows: the finer rule has `points` points, and
///   sum of the finer rule = kept_scale * (sum of the S-point rule) + sum over `added`.
/// Midpoint: 3S points, whose every third is one of the S old midpoints, so the old sum is
/// kept (scaled by 1/3) and only 2S points are new: the cost of doubling without reuse, and
/// the 2S-point midpoint rule shares no point with the S-point one. Gauss-Legendre: 2S points,
/// sharing none with the S-point rule (kept_scale 0, all 2S added).
struct QuadratureRefinement {
  int points = 0;
  double kept_scale = 0.0;
  QuadratureRule added;
};
/// The refinement of the `points`-point rule of `kind` (points >= 1).
QuadratureRefinement refine_quadrature(QuadratureKind kind, int points);

/// "midpoint", "gauss-legendre".
const std::vector<std::string>& quadrature_names();
/// The kind of a name; throws attend::InputError naming the known ones.
QuadratureKind quadrature_from_name(const std::string& name);
std::string quadrature_name(QuadratureKind kind);

}  // namespace attend
