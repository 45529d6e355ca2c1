#include "attend/graph/explain/eraser_aopc.hpp"

#include <algorithm>
#include <numeric>

#include "attend/core/error.hpp"

namespace attend::graph {

const std::vector<int>& aopc_percentages() {
  static const std::vector<int> percent{1, 5, 10, 20, 50};
  return percent;
}

int64_t top_count(int percent, int64_t n) {
  return std::clamp<int64_t>((static_cast<int64_t>(percent) * n + 99) / 100, 1, std::max<int64_t>(n, 1));
}

std::vector<char> top_k_mask(const std::vector<float>& scores, int64_t k) {
  std::vector<std::size_t> order(scores.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
  std::vector<char> keep(scores.size(), 0);
  for (std::size_t r = 0; r < order.size() && static_cast<int64_t>(r) < k; ++r) keep[order[r]] = 1;
  return keep;
}

double aopc(double p_full, const std::vector<double>& p_perturbed) {
  ATTEND_CHECK(!p_perturbed.empty(), "AOPC of no bins");
  double sum = 0.0;
  for (double p : p_perturbed) sum += p_full - p;
  return sum / static_cast<double>(p_perturbed.size());
}

}  // namespace attend::graph
