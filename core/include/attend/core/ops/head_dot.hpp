#pragma once
/// Per-head dot product with a per-head vector: the per-node terms of additive graph attention.

#include "attend/core/autodiff.hpp"

namespace attend::ops {

/// s[n, h] = sum_c x[n, h, c] * a[h, c]: x [N, H, C], a [H, C] -> s [N, H].
/// GAT (Velickovic et al., 2018) splits a^T [W h_i || W h_j] into a_dst . W h_i + a_src . W h_j;
/// this op computes either half for every node, so no per-edge tensor is needed.
/// Parallel strategy: forward and dx over fixed blocks of nodes; da sums per-block partial
/// results in block order, so every result is bit-identical for any thread count.
Var head_dot(const Var& x, const Var& a);

}  // namespace attend::ops
