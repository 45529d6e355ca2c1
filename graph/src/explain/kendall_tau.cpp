#include "attend/graph/explain/kendall_tau.hpp"

#include <cmath>

#include "attend/core/error.hpp"

namespace attend::graph {

double kendall_tau_b(const std::vector<float>& x, const std::vector<float>& y) {
  ATTEND_CHECK(x.size() == y.size(), "rankings of " << x.size() << " and " << y.size() << " items");
  const std::size_t n = x.size();
  double concordant = 0.0, discordant = 0.0, ties_x = 0.0, ties_y = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      const int sx = (x[i] > x[j]) - (x[i] < x[j]);
      const int sy = (y[i] > y[j]) - (y[i] < y[j]);
      if (sx == 0) ties_x += 1.0;
      if (sy == 0) ties_y += 1.0;
      if (sx * sy > 0) concordant += 1.0;
      if (sx * sy < 0) discordant += 1.0;
    }
  }
  const double pairs = 0.5 * static_cast<double>(n) * (static_cast<double>(n) - 1.0);
  const double denominator = std::sqrt((pairs - ties_x) * (pairs - ties_y));
  if (n < 2 || denominator == 0.0) return NAN;
  return (concordant - discordant) / denominator;
}

}  // namespace attend::graph
