#pragma once
/// The gated edge values of the triangular multiplicative update (AF2 supplement, Alg. 11 and
/// 12, lines 2-3: a = sigmoid(Linear(z)) * Linear(z)) as one op: both projections, the gate
/// and the channel-first layout that the per-channel products want, without materialising the
/// projections.

#include <cstdint>

#include "attend/core/autodiff.hpp"

namespace attend::bio {

/// x [n_0, n_1, K], w_gate, w_value [K, c], b_gate, b_value [c] -> [c, n_0, n_1]:
/// out[t, i, j] = sigmoid(x[i, j] . w_gate[:, t] + b_gate[t]) * (x[i, j] . w_value[:, t] +
/// b_value[t]). Equals ops::permute(ops::mul(ops::sigmoid(ops::linear(x, w_gate, b_gate)),
/// ops::linear(x, w_value, b_value)), {2, 0, 1}), keeping only x and the weights for the
/// backward (the projections are recomputed there, block by block).
///
/// Parallel over fixed blocks of 1024 (i, j) rows: per block one [2c, rows] product
/// (gemm_one_block), the gate, and one contiguous run per channel of the output. Backward per block: the same
/// product again, then dx of the block's rows, and the block's partial weight and bias
/// gradients, which are summed in block order after the loop. Block edges depend on the sizes
/// only, so results are bit-identical for any thread count.
Var gated_projection(const Var& x, const Var& w_gate, const Var& b_gate, const Var& w_value, const Var& b_value);

}  // namespace attend::bio
