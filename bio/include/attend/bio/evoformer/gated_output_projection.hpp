#pragma once
/// The gated output of the triangle multiplications (AF2 supplement, Alg. 11 and 12, line 6:
/// sigmoid(Linear(z)) * Linear(LayerNorm(x))) as one op that stores neither the gate nor the
/// projection.

#include "attend/core/autodiff.hpp"

namespace attend::bio {

/// zn [..., Kg], wg [Kg, C], bg [C], xn [..., Kp], wp [Kp, C], bp [C] -> [..., C]:
/// sigmoid(zn wg + bg) * (xn wp + bp), zn and xn with the same number of rows. Equals
/// ops::mul(ops::sigmoid(ops::linear(zn, wg, bg)), ops::linear(xn, wp, bp)), keeping only its
/// inputs for the backward (the gate and the projection are recomputed there block by block).
///
/// Parallel over fixed blocks of 512 rows: per block both products in scratch ([512, C] each),
/// then the gate (attend::sigmoid_approx, as ops::sigmoid) times the projection. Backward per
/// block: both products again, dp = dy g and dl = dy p g (1 - g), dxn += dp wp^T,
/// dzn += dl wg^T, and the block's partial weight and bias gradients, summed in block order
/// after the loop. Block edges depend on the sizes only, so results are bit-identical for any
/// thread count.
Var gated_output_projection(const Var& zn, const Var& wg, const Var& bg, const Var& xn, const Var& wp,
                            const Var& bp);

}  // namespace attend::bio
