#pragma once
/// Batch normalisation over the rows (Ioffe & Szegedy, "Batch Normalization: Accelerating Deep
/// Network Training by Reducing Internal Covariate Shift", ICML 2015, Algorithm 1), the
/// training-mode transform: each column normalised by its mean and variance over the batch.

#include "attend/core/autodiff.hpp"

namespace attend::ops {

/// Column statistics of one batch normalisation: mean and biased variance per column.
struct BatchStatistics {
  Tensor mean;      ///< [C]
  Tensor variance;  ///< [C], biased (divided by the row count)
};

/// x [N, C] (N >= 1) -> [N, C]: (x - mean) / sqrt(var + eps) * gamma + beta per column, with
/// the column mean and biased variance over the N rows; gamma and beta are [C]. When
/// `statistics` is given it receives the batch mean and biased variance (for running
/// averages). Column sums run in double in a fixed order (detail::sum_rows_into) and the
/// elementwise passes over fixed blocks of rows, so every result, dx, dgamma and dbeta
/// included, is bit-identical for any thread count.
Var batch_norm(const Var& x, const Var& gamma, const Var& beta, float eps = 1e-5f,
               BatchStatistics* statistics = nullptr);

}  // namespace attend::ops
