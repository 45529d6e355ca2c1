#pragma once
/// Values of many modified inputs (occluded edges, Shapley coalitions) computed a batch at a
/// time, each batch one forward of a TargetForward pass (target_forward.hpp) over disjoint
/// copies of the computation graph. Every batch has the same number of copies, so one pass
/// serves all of them, and the count is set by the work, not the thread count.

#include <cstdint>
#include <functional>
#include <vector>

namespace attend::graph {

/// The values of inputs 0 .. count - 1 in balanced batches of at most `per_batch` copies:
/// `batch_f(first, size, copies)` returns the value of each copy of one pass of `copies`
/// copies whose copy k < size holds input first + k (the copies of a short last batch past
/// `size` hold anything and their values are dropped).
std::vector<double> batched_values(int64_t count, int64_t per_batch,
                                   const std::function<std::vector<double>(int64_t, int64_t, int64_t)>& batch_f);

}  // namespace attend::graph
