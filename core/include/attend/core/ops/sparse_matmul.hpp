#pragma once
/// Product of a constant sparse matrix and a dense Var.

#include <cstdint>
#include <memory>
#include <vector>

#include "attend/core/autodiff.hpp"
#include "attend/core/sparse_matrix.hpp"

namespace attend::ops {

/// x [N, K] (sparse, constant) times w [K, C] -> [N, C]. Forward is parallel over fixed
/// blocks of rows of x; backward dw = x^T dy runs over the cached transpose, parallel over
/// rows of dw, each summed in a fixed order: bit-identical for any thread count.
/// The op keeps `x` alive until its backward has run. When x carries differentiable values
/// a [nnz] (SparseMatrix::with_differentiable_values), the product uses them and
/// da[k] = dy[row k] . w[column k] for each stored entry, each written once.
Var sparse_matmul(std::shared_ptr<const SparseMatrix> x, const Var& w);

/// x [N, K] (sparse, constant) times w [K, B * C] -> [N, B * C], where column block b of w
/// (C = w.cols / B wide) multiplies x under its own inverted-dropout mask: entry k of x is
/// kept for block b when counter_uniform(block_seeds[b], k) >= p, the mask
/// sparse_dropout(x, p, block_seeds[b]) draws. Equals concatenating B products
/// sparse_matmul(sparse_dropout(x, p, seed_b), w_b), bit for bit, in one pass over x: the
/// input dropout of the GAT authors' code, which draws a mask per attention head. Forward
/// parallel over fixed row blocks, backward over rows of dw through the cached transpose of
/// x: bit-identical for any thread count. `block_seeds.size()` is B, 1 to kMaxDropoutBlocks; p in [0, 1).
constexpr int64_t kMaxDropoutBlocks = 64;  ///< B limit of sparse_matmul_block_dropout
Var sparse_matmul_block_dropout(std::shared_ptr<const SparseMatrix> x, const Var& w, float p,
                                const std::vector<uint64_t>& block_seeds);

/// Inverted dropout on the stored values of a constant sparse matrix: value k is kept when
/// counter_uniform(seed, k) >= p and scaled by 1 / (1 - p). Zeros stay zero, so this equals
/// dense dropout on the non-zeros. Returns `x` itself when p == 0.
std::shared_ptr<const SparseMatrix> sparse_dropout(std::shared_ptr<const SparseMatrix> x, float p,
                                                   uint64_t seed);

}  // namespace attend::ops
