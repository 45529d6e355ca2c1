#pragma once
/// Internal: the entropy penalty of a soft mask entry, shared by GNNExplainer's and
/// PGExplainer's mask regularisers (Ying et al. 2019; Luo et al. 2020).

#include <cmath>

namespace attend::graph::detail {

/// H(m) = -m log(m + eps) - (1 - m) log(1 - m + eps).
inline double binary_entropy(double m, double eps) {
  return -m * std::log(m + eps) - (1.0 - m) * std::log(1.0 - m + eps);
}

/// dH/dm of binary_entropy.
inline double binary_entropy_derivative(double m, double eps) {
  return -std::log(m + eps) - m / (m + eps) + std::log(1.0 - m + eps) + (1.0 - m) / (1.0 - m + eps);
}

}  // namespace attend::graph::detail
