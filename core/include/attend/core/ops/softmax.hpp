#pragma once
/// Softmax and log-softmax over the last axis, max-subtracted for stability. Parallel over
/// fixed blocks of rows; each row is computed by one thread, so results do not depend on the
/// thread count.

#include "attend/core/autodiff.hpp"

namespace attend::ops {

/// x [..., C] -> [..., C], each row exp(x - max) / sum exp(x - max).
/// dx = y * (dy - sum(dy * y)) per row.
Var softmax(const Var& x);

/// x [..., C] -> [..., C], each row x - max - log(sum exp(x - max)).
/// dx = dy - exp(y) * sum(dy) per row.
Var log_softmax(const Var& x);

}  // namespace attend::ops
