#pragma once
/// Layer normalisation (Ba, Kiros & Hinton, 2016) over the last axis.

#include "attend/core/autodiff.hpp"

namespace attend::ops {

/// x [..., C] -> [..., C]: each row is (x - mean) / sqrt(var + eps) * gamma + beta, with the
/// biased variance. gamma and beta are [C]; either may be undefined (no scale / no shift).
/// Forward and dx run in parallel over fixed blocks of rows (row statistics in double);
/// dgamma and dbeta are sums over rows in a fixed order, so all results are bit-identical for
/// any thread count.
Var layer_norm(const Var& x, const Var& gamma = Var(), const Var& beta = Var(), float eps = 1e-5f);

}  // namespace attend::ops
