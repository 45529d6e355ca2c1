#pragma once
/// Mean over the heads of a multi-head tensor.

#include "attend/core/autodiff.hpp"

namespace attend::ops {

/// y[n, c] = (1/H) sum_h x[n, h, c]: x [N, H, C] -> y [N, C], how a multi-head graph layer
/// averages its heads (GAT's output layer, PyTorch Geometric's concat=False).
/// Parallel over fixed blocks of nodes; heads are summed in order (thread-count invariant).
Var head_mean(const Var& x);

}  // namespace attend::ops
