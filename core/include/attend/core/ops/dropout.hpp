#pragma once
/// Inverted dropout (Srivastava et al., 2014) with a counter-based mask.

#include <cstdint>

#include "attend/core/autodiff.hpp"

namespace attend::ops {

/// Element i of x is kept, and scaled by 1 / (1 - p), when counter_uniform(seed, i) >= p, and
/// zeroed otherwise. The mask depends only on (seed, i), so it is the same for any thread count;
/// the backward recomputes it instead of storing it. Identity (x itself) when !training or
/// p == 0. p must be in [0, 1). Parallel over fixed blocks of elements.
Var dropout(const Var& x, float p, uint64_t seed, bool training);

}  // namespace attend::ops
