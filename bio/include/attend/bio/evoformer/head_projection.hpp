#pragma once
/// The projections around a multi-head attention (AF2 supplement, Alg. 7, 8, 13 and 14: the
/// q, k, v and gate linears into the heads, the output linear out of them) as ops that read
/// and write the heads layout [B, H, N, c] directly: no [rows, H c] intermediate, no copy
/// between layouts, and the batch may be either of the first two axes of the activations
/// (column-wise attentions without a transposed copy).

#include <cstdint>
#include <vector>

#include "attend/core/autodiff.hpp"

namespace attend::bio {

/// x [B, N, C] (batch_axis 0) or [N, B, C] (batch_axis 1), w [C, H c], bias [H c] or
/// undefined -> [B, H, N, c]: out[b, h, n, t] = x(b, n) . w[:, h c + t] + bias[h c + t].
/// Equals heads_first(ops::linear(x, w, bias)) (after ops::permute(x, {1, 0, 2}) when
/// batch_axis is 1). Parallel over fixed groups of batch rows (one product each); the weight
/// and bias gradients are per-group partials summed in group order: bit-identical for any
/// thread count.
Var project_to_heads(const Var& x, const Var& w, const Var& bias, int64_t n_heads, int batch_axis);

/// x as for project_to_heads, P weights w_p [C, H c] and P biases [H c] or undefined -> P
/// results [B, H, N, c], result p equal to project_to_heads(x, w_p, bias_p, n_heads,
/// batch_axis) (the q, k, v and gate of a gated attention: P = 4). The forward runs the P
/// products of a batch row one after the other (the row of x stays in cache, each [N, H c]
/// result in L2 until copied into its heads layout); the backward puts the P gradients of a
/// row side by side and forms dx with one product [N, P H c] x [P H c, C] and the weights'
/// gradient with one [C, N] x [N, P H c]. The side-by-side weights are built per backward
/// (C x P H c floats), so the parameters and checkpoints keep their own names and shapes.
/// The joint backward runs with the last result, which takes the others as inputs: the last
/// result must reach the loss wherever the others do (a backward that reaches another result
/// without it throws). Same parallel strategy and thread invariance as project_to_heads.
std::vector<Var> project_to_heads_jointly(const Var& x, const std::vector<Var>& weights,
                                          const std::vector<Var>& biases, int64_t n_heads, int batch_axis);

/// o [B, H, N, c], w [H c, C], bias [C] or undefined -> [B, N, C] (batch_axis 0) or
/// [N, B, C] (batch_axis 1): y(b, n) = sum over h, t of o[b, h, n, t] w[h c + t, :] + bias.
/// The inverse layout of project_to_heads; same parallel strategy.
Var project_from_heads(const Var& o, const Var& w, const Var& bias, int batch_axis);

}  // namespace attend::bio
