#pragma once
/// Product of a constant sparse matrix and a dense Var.

#include <cstdint>
#include <memory>

#include "attend/core/autodiff.hpp"
#include "attend/core/sparse_matrix.hpp"

namespace attend::ops {

/// x [N, K] (sparse, constant) times w [K, C] -> [N, C]. Forward is parallel over fixed
/// blocks of rows of x; backward dw = x^T dy runs over the cached transpose, parallel over
/// rows of dw, each summed in a fixed order: bit-identical for any thread count.
/// The op keeps `x` alive until its backward has run.
Var sparse_matmul(std::shared_ptr<const SparseMatrix> x, const Var& w);

/// Inverted dropout on the stored values of a constant sparse matrix: value k is kept when
/// counter_uniform(seed, k) >= p and scaled by 1 / (1 - p). Zeros stay zero, so this equals
/// dense dropout on the non-zeros. Returns `x` itself when p == 0.
std::shared_ptr<const SparseMatrix> sparse_dropout(std::shared_ptr<const SparseMatrix> x, float p,
                                                   uint64_t seed);

}  // namespace attend::ops
