#pragma once
// Internal: pairs of a score matrix ranked as contact metrics rank them.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "attend/core/tensor.hpp"

namespace attend::bio::detail {

struct RankedPair {
  int64_t i = 0, j = 0;
  float score = 0.0f;
};

// Pairs i < j with j - i >= min_separation, by scores[i, j] descending, ties by i then j.
inline std::vector<RankedPair> ranked_pairs(const Tensor& scores, int64_t min_separation) {
  const int64_t L = scores.dim(0);
  std::vector<RankedPair> pairs;
  for (int64_t i = 0; i < L; ++i)
    for (int64_t j = i + std::max<int64_t>(min_separation, 1); j < L; ++j)
      pairs.push_back({i, j, scores[i * L + j]});
  std::sort(pairs.begin(), pairs.end(), [](const RankedPair& a, const RankedPair& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.i != b.i) return a.i < b.i;
    return a.j < b.j;
  });
  return pairs;
}

}  // namespace attend::bio::detail
