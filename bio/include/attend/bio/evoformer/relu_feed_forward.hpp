#pragma once
/// The two-layer ReLU feed-forward of the MSA and pair transitions (AF2 supplement, Alg. 9
/// and 15, lines 2-3: Linear(relu(Linear(x)))) as one op that never stores the hidden layer.

#include "attend/core/autodiff.hpp"

namespace attend::bio {

/// x [..., K], w1 [K, H], b1 [H], w2 [H, C], b2 [C] -> [..., C]:
/// relu(x w1 + b1) w2 + b2. Equals ops::linear(ops::relu(ops::linear(x, w1, b1)), w2, b2),
/// keeping only x and the weights for the backward (the hidden layer, [..., H] with H = 4 K in
/// the transitions, is recomputed there block by block).
///
/// Parallel over fixed blocks of 512 rows: per block the hidden layer in scratch ([512, H]),
/// then its product with w2. Backward per block: the hidden layer again, dh = dy w2^T masked
/// by the ReLU, dx += dh w1^T, and the block's partial weight and bias gradients, summed in
/// block order after the loop. Block edges depend on the sizes only, so results are
/// bit-identical for any thread count.
Var relu_feed_forward(const Var& x, const Var& w1, const Var& b1, const Var& w2, const Var& b2);

}  // namespace attend::bio
