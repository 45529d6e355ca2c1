#pragma once
/// Layer normalisation (Ba, Kiros & Hinton, 2016) over the last axis.

#include "attend/core/autodiff.hpp"

namespace attend::ops {

/// x [..., C] -> [..., C]: each row is (x - mean) / sqrt(var + eps) * gamma + beta, with the
/// biased variance. gamma and beta are [C]; either may be undefined (no scale / no shift).
/// Parallel over fixed blocks of 256 rows. Row statistics are float sums in 16 interleaved
/// lanes (one vector register), added in lane order; the backward forms dx, and the block's
/// partial dgamma and dbeta, in one pass over the rows; the partials are summed in double in
/// block order. All results are bit-identical for any thread count.
Var layer_norm(const Var& x, const Var& gamma = Var(), const Var& beta = Var(), float eps = 1e-5f);

}  // namespace attend::ops
