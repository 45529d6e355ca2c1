#pragma once
/// Classification losses, each a mean returned as a scalar (shape {}). Per-row / per-element
/// terms are computed in double in parallel over fixed blocks and added in a fixed order, so the
/// loss and its gradient are bit-identical for any thread count.

#include <cstdint>
#include <vector>

#include "attend/core/autodiff.hpp"

namespace attend::ops {

/// Masked cross-entropy for node classification: the mean over the listed `rows` of
/// -log softmax(logits[r])[labels[r]]. logits [N, C]; labels has N entries (labels of unlisted
/// rows are ignored, e.g. -1 for unlabelled nodes); rows is non-empty, each in [0, N) (a row
/// listed twice counts twice). dlogits[r] = dy * count(r) / |rows| * (softmax(logits[r]) - onehot).
Var cross_entropy(const Var& logits, const std::vector<int64_t>& labels,
                  const std::vector<int64_t>& rows);

/// Mean over all elements of w * (max(x, 0) - x t + log(1 + exp(-|x|))), the overflow-free form
/// of -w (t log sigmoid(x) + (1 - t) log(1 - sigmoid(x))). targets (and weights, when given)
/// have the shape of logits; both are copied. dx = dy w (sigmoid(x) - t) / numel.
Var binary_cross_entropy_with_logits(const Var& logits, const Tensor& targets,
                                     const Tensor* weights = nullptr);

}  // namespace attend::ops
