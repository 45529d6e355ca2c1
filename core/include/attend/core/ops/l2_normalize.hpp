#pragma once
/// Row-wise L2 normalisation, as PyTorch's F.normalize(x, p=2, dim=-1): each row divided by
/// max(its Euclidean norm, eps). Rows run in parallel over fixed blocks; each row's norm is
/// summed in double in index order, so results do not depend on the thread count.

#include "attend/core/autodiff.hpp"

namespace attend::ops {

/// x [..., C] -> y = x / max(||x||, eps) [..., C]. dx = (dy - y (y . dy)) / ||x|| for a row
/// whose norm is above eps, dy / eps otherwise.
Var l2_normalize(const Var& x, float eps = 1e-12f);

}  // namespace attend::ops
