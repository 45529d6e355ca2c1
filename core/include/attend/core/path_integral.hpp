#pragma once
/// Integrated gradients' path integral (Sundararajan, Taly & Yan 2017, "Axiomatic attribution
/// for deep networks", Eq. 1) with the zero baseline, for any differentiable f of one tensor:
///   IG_i = x_i * integral over a in [0, 1] of df/dx_i (a x) da,
/// the integral by an S-point quadrature rule on [0, 1], sum_k w_k df/dx_i (a_k x)
/// (core/quadrature.hpp: the midpoint rule, error O(1/S^2) for a smooth f, or Gauss-Legendre,
/// exact when the integrand is a polynomial of degree 2S - 1; where the gradient jumps along
/// the path, as in a ReLU model, neither keeps its order and the gap falls roughly as 1/S).
/// Completeness (their Prop. 1) says sum_i IG_i = f(x) - f(0); the gap between the two is
/// reported, and with a bound on it (PathSteps::max_gap) the rule is refined until the gap is
/// within the bound or the step cap: while |gap| > max_gap |f(x) - f(0)|, refine_quadrature
/// (the midpoint rule triples its points and keeps the gradients already summed,
/// Gauss-Legendre doubles them and starts over) as long as the finer rule has at most
/// max_steps points.
/// The explainers of graph/ (node features, edge masks) and bio/ (a contact's score against
/// the alignment features) share it.

#include <cstdint>
#include <functional>

#include "attend/core/quadrature.hpp"
#include "attend/core/tensor.hpp"

namespace attend {

/// f and df/dx at one batch of points on the path.
struct PathGradient {
  double value = 0.0;  ///< f (summed over the copies; only read for one copy)
  Tensor gradient;     ///< the shape of the batch it was given
};

/// `gradient(points, copies)`: f and df/dx at `copies` points stacked along dimension 0
/// (points [copies * m, ...] for an input [m, ...]; copy k in rows [k m, (k + 1) m)).
using PathGradientFn = std::function<PathGradient(const Tensor& points, int64_t copies)>;

/// `value(point)`: f at one point (the input's shape), without its gradient.
using PathValueFn = std::function<double(const Tensor& point)>;

/// Called after each batch with the number of gradient evaluations done so far.
using PathProgressFn = std::function<void(int64_t steps_done)>;

/// The quadrature of the path integral: `steps` points of `rule`, refined while the relative
/// completeness gap exceeds `max_gap` (0: never) and the cap allows.
struct PathSteps {
  QuadratureKind rule = QuadratureKind::kMidpoint;
  int steps = 50;        ///< points of the first rule (>= 1)
  double max_gap = 0.0;  ///< bound on |gap| / |f(input) - f(baseline)|; 0: no refinement
  int max_steps = 0;     ///< no refined rule has more points than this
};

/// Attributions of one input and the completeness check.
struct PathIntegral {
  Tensor attribution;            ///< the input's shape
  double value = 0.0;            ///< f(input)
  double baseline_value = 0.0;   ///< f(0)
  /// sum of the attributions - (f(input) - f(baseline))
  double completeness_gap = 0.0;
  int steps = 0;                 ///< points of the rule that gave the attribution
};

/// Integrated gradients of `input` [m, ...] from the zero baseline with the quadrature `path`
/// (steps >= 1, max_gap >= 0), `per_batch` >= 1 points per call of `gradient` (the last batch
/// of a rule may be smaller). The integral sums the points in double in their order, so the
/// result does not depend on `per_batch` beyond what `gradient` itself does. f(input) and f(0)
/// come from one call of `value` each.
PathIntegral integrate_from_zero(const Tensor& input, const PathSteps& path, int64_t per_batch, const PathValueFn& value,
                                 const PathGradientFn& gradient, const PathProgressFn& progress = {});
/// The same with f(input) given (`input_value`, computed by the caller for its own use):
/// `value` is called for f(0) only.
PathIntegral integrate_from_zero(const Tensor& input, double input_value, const PathSteps& path, int64_t per_batch,
                                 const PathValueFn& value, const PathGradientFn& gradient,
                                 const PathProgressFn& progress = {});

}  // namespace attend
