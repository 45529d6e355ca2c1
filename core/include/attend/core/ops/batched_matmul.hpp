#pragma once
/// Batched matrix products: one independent product per leading index.

#include "attend/core/autodiff.hpp"

namespace attend::ops {

/// op(a)[b] op(b)[b] for every batch index b -> [B, M, N]. a is [B, M, K] ([B, K, M] when
/// trans_a), b is [B, K, N] ([B, N, K] when trans_b). The triangle multiplicative updates use
/// it with one batch entry per channel.
/// Parallel strategy: parallel over the batch index, each product one single-threaded GEMM
/// (gemm_one_block; a batch of one is gemm's), so results are bit-identical for any thread
/// count. The backward is two more
/// batched products of the same kind (da from dy and b, db from a and dy).
Var batched_matmul(const Var& a, const Var& b, bool trans_a = false, bool trans_b = false);

}  // namespace attend::ops
