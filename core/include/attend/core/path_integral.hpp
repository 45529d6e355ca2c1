#pragma once
/// Integrated gradients' path integral (Sundararajan, Taly & Yan 2017, "Axiomatic attribution
/// for deep networks", Eq. 1) with the zero baseline, for any differentiable f of one tensor:
///   IG_i = x_i * integral over a in [0, 1] of df/dx_i (a x) da,
/// the integral by an S-point quadrature rule on [0, 1], sum_k w_k df/dx_i (a_k x)
/// (core/quadrature.hpp: the midpoint rule, error O(1/S^2) for a smooth f, or Gauss-Legendre,
/// exact when the integrand is a polynomial of degree 2S - 1; where the gradient jumps along
/// the path, as in a ReLU model, neither keeps its order and the gap falls roughly as 1/S).
/// Completeness (their Prop. 1) says sum_i IG_i = f(x) - f(0);
/// the gap between the two is reported so that a caller can see whether S suffices.
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

/// Called after each batch with the number of steps done so far.
using PathProgressFn = std::function<void(int64_t steps_done)>;

/// Attributions of one input and the completeness check.
struct PathIntegral {
  Tensor attribution;            ///< the input's shape
  double value = 0.0;            ///< f(input)
  double baseline_value = 0.0;   ///< f(0)
  /// sum of the attributions - (f(input) - f(baseline))
  double completeness_gap = 0.0;
};

/// Integrated gradients of `input` [m, ...] from the zero baseline at the points of `rule` (at
/// least one), `per_batch` >= 1 points per call of `gradient` (the last batch may be smaller). The
/// integral sums the steps in double in step order, so the result does not depend on
/// `per_batch` beyond what `gradient` itself does. f(input) and f(0) come from one call each
/// with one copy.
PathIntegral integrate_from_zero(const Tensor& input, const QuadratureRule& rule, int64_t per_batch,
                                 const PathGradientFn& gradient,
                                 const PathProgressFn& progress = {});

}  // namespace attend
