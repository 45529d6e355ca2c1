#pragma once
/// Shape manipulation: concatenation and splitting on the last axis, reshape, permute. Every op
/// copies (tensors have no strides). Copies run in parallel over fixed blocks of rows; each
/// output element is written by one thread.

#include <cstdint>
#include <vector>

#include "attend/core/autodiff.hpp"

namespace attend::ops {

/// Concatenate on the last axis: parts [..., C_i] with equal leading dimensions ->
/// [..., sum C_i]. Each part's gradient is its slice of dy.
Var concat(const std::vector<Var>& parts);

/// Split x [..., C] on the last axis into pieces [..., sizes[k]] (sizes sum to C). Each piece
/// sends its gradient into its slice of dx.
std::vector<Var> split(const Var& x, const std::vector<int64_t>& sizes);

/// The values of x under another shape of the same element count; one dimension may be -1
/// (inferred). dx = dy reshaped back.
Var reshape(const Var& x, Shape shape);

/// Reorder the axes of x: output axis i is input axis axes[i] (a permutation of 0..rank-1,
/// rank <= 6). dx = dy permuted by the inverse permutation.
Var permute(const Var& x, const std::vector<int>& axes);

}  // namespace attend::ops
