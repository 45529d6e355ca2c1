#pragma once
/// Matrix products: matmul and linear (affine) layers.

#include "attend/core/autodiff.hpp"

namespace attend::ops {

/// a [..., K] times b [K, N] -> [..., N]; leading axes of `a` are flattened into rows.
/// Backward: da = dy b^T, db = a^T dy (parallel over fixed blocks of the output, see gemm).
Var matmul(const Var& a, const Var& b);

/// x [..., in] W [in, out] + bias [out] -> [..., out]. `bias` may be undefined.
/// Weights are stored [in, out] so the forward is a plain row-major product; the bias goes
/// through `add` (row broadcast), so its gradient is the deterministic sum over rows.
Var linear(const Var& x, const Var& weight, const Var& bias = Var());

}  // namespace attend::ops
