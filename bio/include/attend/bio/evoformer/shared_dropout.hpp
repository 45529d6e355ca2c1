#pragma once
/// Dropout with a mask shared along one axis: AlphaFold 2's DropoutRowwise and
/// DropoutColumnwise (AF2 supplement, Alg. 6 and section 1.11.6).

#include <cstdint>

#include "attend/core/autodiff.hpp"

namespace attend::bio {

/// Inverted dropout on x [A, B, C] with one mask for every index of `shared_axis` (0 or 1):
/// shared_axis 0 draws a mask [1, B, C] (AF2 "row-wise": the same for every row),
/// shared_axis 1 a mask [A, 1, C] ("column-wise"). Mask element e (flat index in the mask) is
/// kept, and scaled by 1 / (1 - p), when counter_uniform(seed, e) >= p. The mask depends only
/// on (seed, e), so it is the same for any thread count; it is drawn once per call (forward,
/// and again in the backward) and applied to every row.
/// Identity (x itself) when !training or p == 0; p must be in [0, 1). Parallel over the A * B
/// rows of C values.
Var shared_dropout(const Var& x, float p, uint64_t seed, bool training, int shared_axis);

/// residual + shared_dropout(x, p, seed, training, shared_axis) in one pass (the Evoformer's
/// residual updates, AF2 Alg. 6): the values of ops::add of the two to one rounding (the
/// product and the sum may be fused into one multiply-add), the same gradients bit for bit,
/// without the dropped-out tensor. residual has x's shape [A, B, C].
Var add_shared_dropout(const Var& residual, const Var& x, float p, uint64_t seed, bool training, int shared_axis);

}  // namespace attend::bio
