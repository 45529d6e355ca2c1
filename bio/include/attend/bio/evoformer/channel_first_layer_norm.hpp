#pragma once
/// Layer norm of a channel-first tensor, written channel-last: the triangular multiplicative
/// update's per-channel products come out [c, i, j] and its layer norm and output projection
/// want [i, j, c] (AF2 supplement, Alg. 11 and 12, line 4), so the transpose is done inside
/// the normalisation pass instead of as a separate 32 MiB copy before it.

#include "attend/core/autodiff.hpp"

namespace attend::bio {

/// x [C, n_0, n_1], gamma, beta [C] -> y [n_0, n_1, C]: y[i, j, :] = (x[:, i, j] - mean) /
/// sqrt(var + eps) * gamma + beta over the C channels of each (i, j). Equals
/// ops::layer_norm(ops::permute(x, {1, 2, 0}), gamma, beta, eps) up to rounding (sums in
/// float, two passes: mean, then centred squares), keeping x, the means and the inverse
/// standard deviations for the backward.
///
/// Parallel over fixed blocks of 1024 (i, j) positions, each worked in tiles of 64: statistics
/// and the normalised values read x channel by channel (contiguous over positions) and write
/// the tile's rows channel-last; the backward transposes the tile's dy once and computes dx
/// channel-first the same way. gamma and beta gradients are partial sums per block added in
/// block order, so results are bit-identical for any thread count.
Var channel_first_layer_norm(const Var& x, const Var& gamma, const Var& beta, float eps = 1e-5f);

}  // namespace attend::bio
