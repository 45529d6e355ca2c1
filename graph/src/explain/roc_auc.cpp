#include "attend/graph/explain/roc_auc.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "attend/core/error.hpp"

namespace attend::graph {

double roc_auc(const std::vector<float>& scores, const std::vector<bool>& positive) {
  ATTEND_CHECK(scores.size() == positive.size(), scores.size() << " scores, " << positive.size() << " labels");
  const std::size_t n = scores.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return scores[a] < scores[b]; });
  double positive_rank_sum = 0.0, positives = 0.0;
  for (std::size_t first = 0; first < n;) {
    std::size_t last = first;
    while (last < n && scores[order[last]] == scores[order[first]]) ++last;
    const double mid_rank = 0.5 * static_cast<double>(first + 1 + last);  // ranks first+1 .. last
    for (std::size_t k = first; k < last; ++k) {
      if (positive[order[k]]) {
        positive_rank_sum += mid_rank;
        positives += 1.0;
      }
    }
    first = last;
  }
  const double negatives = static_cast<double>(n) - positives;
  if (positives == 0.0 || negatives == 0.0) return NAN;
  return (positive_rank_sum - positives * (positives + 1.0) / 2.0) / (positives * negatives);
}

}  // namespace attend::graph
