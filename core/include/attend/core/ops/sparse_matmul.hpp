#pragma once
/// Product of a constant sparse matrix and a dense Var.

#include "attend/core/autodiff.hpp"
#include "attend/core/sparse_matrix.hpp"

namespace attend::ops {

/// x [N, K] (sparse, constant) times w [K, C] -> [N, C]. Forward is parallel over fixed
/// blocks of rows of x; backward dw = x^T dy runs over the cached transpose, parallel over
/// rows of dw, each summed in a fixed order: bit-identical for any thread count.
/// `x` must outlive the backward pass.
Var sparse_matmul(const SparseMatrix& x, const Var& w);

}  // namespace attend::ops
