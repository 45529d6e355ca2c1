#include "attend/graph/explain/fidelity.hpp"

#include <cmath>

#include "attend/core/error.hpp"

namespace attend::graph {

Fidelity fidelity(const std::vector<int64_t>& predicted, const std::vector<int64_t>& complement,
                  const std::vector<int64_t>& explanation) {
  ATTEND_CHECK(!predicted.empty() && predicted.size() == complement.size() && predicted.size() == explanation.size(),
               "fidelity of " << predicted.size() << " / " << complement.size() << " / " << explanation.size()
                              << " predictions");
  double same_complement = 0.0, same_explanation = 0.0;
  for (std::size_t t = 0; t < predicted.size(); ++t) {
    same_complement += complement[t] == predicted[t];
    same_explanation += explanation[t] == predicted[t];
  }
  const auto n = static_cast<double>(predicted.size());
  return {1.0 - same_complement / n, 1.0 - same_explanation / n};
}

double characterization_score(const Fidelity& f, double positive_weight, double negative_weight) {
  if (f.plus == 0.0 || f.minus == 1.0) return NAN;
  return (positive_weight + negative_weight) / (positive_weight / f.plus + negative_weight / (1.0 - f.minus));
}

}  // namespace attend::graph
