#pragma once
// Internal: scores of a fit over the kept columns mapped back onto every column of the input.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "attend/core/tensor.hpp"

namespace attend::bio::detail {

/// `fitted` [L', L'] over the kept `columns` (increasing, L' of them) -> [L, L]: pairs that
/// touch a removed column get the lowest off-diagonal fitted score, the diagonal 0.
inline Tensor expand_fitted_scores(const Tensor& fitted, const std::vector<int64_t>& columns, int64_t L) {
  const auto kept = static_cast<int64_t>(columns.size());
  float lowest = std::numeric_limits<float>::max();
  for (int64_t i = 0; i < kept; ++i)
    for (int64_t j = 0; j < kept; ++j)
      if (i != j) lowest = std::min(lowest, fitted[i * kept + j]);
  Tensor scores({L, L}, lowest);  // [L, L]
  for (int64_t i = 0; i < L; ++i) scores[i * L + i] = 0.0f;
  for (int64_t i = 0; i < kept; ++i)
    for (int64_t j = 0; j < kept; ++j)
      if (i != j) scores[columns[i] * L + columns[j]] = fitted[i * kept + j];
  return scores;
}

}  // namespace attend::bio::detail
