#pragma once
/// Full reductions to a scalar. Fixed blocks of 2^14 elements are summed in double in
/// parallel and the block sums added in block order, so the result is bit-identical for any
/// thread count.

#include "attend/core/autodiff.hpp"

namespace attend::ops {

/// Sum of all elements of x -> scalar (shape {}). dx = dy everywhere.
Var sum(const Var& x);

/// Mean of all elements of x (at least one) -> scalar (shape {}). dx = dy / numel everywhere.
Var mean(const Var& x);

}  // namespace attend::ops
