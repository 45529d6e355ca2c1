#pragma once
/// Elementwise arithmetic with row broadcasting.
///
/// Broadcast rule for `b`: either the same shape as `a`, or a shape equal to the trailing
/// dimensions of `a` (a [N, C] with b [C]; a [N, H, C] with b [H, C]; a scalar b of shape {}),
/// in which case `b` is repeated over the leading "rows" of `a`. The result has a's shape.
/// Forward and a's gradient run in parallel over fixed blocks of elements; the gradient of a
/// broadcast `b` is a sum over rows in double in a fixed order (see detail::sum_rows_into), so
/// it is bit-identical for any thread count.

#include "attend/core/autodiff.hpp"

namespace attend::ops {

/// a + b (b broadcast over the rows of a). da = dy, db = sum over rows of dy.
Var add(const Var& a, const Var& b);

/// a - b (b broadcast over the rows of a). da = dy, db = -sum over rows of dy.
Var sub(const Var& a, const Var& b);

/// a * b elementwise (b broadcast over the rows of a). da = dy * b, db = sum over rows of dy * a.
Var mul(const Var& a, const Var& b);

/// a * factor. da = factor * dy.
Var scale(const Var& a, float factor);

}  // namespace attend::ops
