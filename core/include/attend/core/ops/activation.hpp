#pragma once
/// Pointwise activations. Forward and backward run in parallel over fixed blocks of elements
/// (each element is independent, so results do not depend on the thread count).

#include "attend/core/autodiff.hpp"

namespace attend::ops {

/// max(x, 0). dx = dy where x > 0, else 0.
Var relu(const Var& x);

/// ELU (Clevert, Unterthiner & Hochreiter, 2016): x for x > 0, alpha (exp(x) - 1) otherwise,
/// with a vectorised polynomial exp - 1 (absolute error below 3e-7).
Var elu(const Var& x, float alpha = 1.0f);

/// x for x > 0, negative_slope * x otherwise (the GAT default slope is 0.2).
Var leaky_relu(const Var& x, float negative_slope = 0.2f);

/// 1 / (1 + exp(-x)) with the vectorised sigmoid_approx (fast_sigmoid.hpp: relative error
/// below 2.5e-7, no overflow for large |x|). dx = dy y (1 - y).
Var sigmoid(const Var& x);

/// Hyperbolic tangent. dx = dy (1 - y^2).
Var tanh(const Var& x);

}  // namespace attend::ops
