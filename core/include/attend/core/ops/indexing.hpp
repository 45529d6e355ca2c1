#pragma once
/// Row gathers and scatters on the first axis, and embedding lookup.
///
/// Scatters are deterministic without atomics: source rows are grouped by destination row
/// with a counting sort, then each destination row is summed by one thread, in the order of
/// the source rows. Out-of-range indices throw attend::Error.

#include <cstdint>
#include <vector>

#include "attend/core/autodiff.hpp"

namespace attend::ops {

/// x [N, ...] -> [M, ...] with out[m] = x[index[m]] (M = index.size()). Parallel over fixed
/// blocks of output rows. dx = scatter_add_rows(dy, index, N).
Var gather_rows(const Var& x, const std::vector<int64_t>& index);

/// x [M, ...] -> [n_rows, ...] with out[index[m]] += x[m] (M = index.size()). Parallel over
/// fixed blocks of destination rows (counting sort, no atomics). dx = gather_rows(dy, index).
Var scatter_add_rows(const Var& x, const std::vector<int64_t>& index, int64_t n_rows);

/// weight [V, C], ids (each in [0, V)) -> [ids.size(), C]: the rows of weight named by ids.
Var embedding(const Var& weight, const std::vector<int64_t>& ids);

}  // namespace attend::ops
