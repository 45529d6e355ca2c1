#pragma once
/// Vectorisable logistic sigmoid for float kernels (gates of attention and of the Evoformer's
/// projections), built on exp_approx.

#include "attend/core/fast_exp.hpp"

namespace attend {

/// 1 / (1 + exp(-x)) with exp_approx: branch-free, so that loops calling it vectorise and their
/// vector body and scalar tail agree bit for bit. Relative error below 2.5e-7 for x >= -87
/// (measured maximum 1.8e-7 against a double-precision reference on a 2^-10 grid,
/// tests/core/test_fast_sigmoid.cpp). Below -87, where the true value is under 1.7e-38, it
/// returns about 6e-39 (exp_approx clamps its argument at 88). Exactly 1 above 87 and for
/// +inf, about 6e-39 for -inf, NaN for NaN.
inline float sigmoid_approx(float x) { return 1.0f / (1.0f + exp_approx(-x)); }

}  // namespace attend
