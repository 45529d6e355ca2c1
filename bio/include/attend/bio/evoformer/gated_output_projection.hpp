#pragma once
/// The output of the triangle multiplications (AF2 supplement, Alg. 11 and 12, lines 5-6:
/// sigmoid(Linear(z)) * Linear(LayerNorm(x)), x the per-channel products [C, i, j]) as one op
/// that stores neither the normalised x, nor the gate, nor the projection.

#include "attend/core/autodiff.hpp"

namespace attend::bio {

/// zn [n_0, n_1, Kg], wg [Kg, D], bg [D], x [C, n_0, n_1], gamma, beta [C], wp [C, D],
/// bp [D] -> [n_0, n_1, D]: sigmoid(zn wg + bg) * (xn wp + bp) with xn [n_0, n_1, C] the
/// layer norm of x over C (scale gamma, shift beta, `eps`). Equals
/// ops::mul(ops::sigmoid(ops::linear(zn, wg, bg)),
///          ops::linear(channel_first_layer_norm(x, gamma, beta, eps), wp, bp)),
/// keeping only its inputs for the backward.
///
/// Parallel over fixed blocks of 512 positions (i, j): per block the layer norm of x's columns
/// into scratch, channel-first [C, 512] as x holds them, both products ([512, D] each), then
/// the gate (attend::sigmoid_approx, as ops::sigmoid) times the projection. Backward per block:
/// all of that again, dp = dy g and dl = dy p g (1 - g), dzn += dl wg^T, dxn^T = wp dp^T
/// (channel-first), the layer norm's backward into dx, and the block's partial weight, bias,
/// gamma and beta gradients, summed in block order after the loop. Block edges depend on the
/// sizes only, so results are bit-identical for any thread count.
Var gated_output_projection(const Var& zn, const Var& wg, const Var& bg, const Var& x, const Var& gamma,
                            const Var& beta, float eps, const Var& wp, const Var& bp);

}  // namespace attend::bio
