#pragma once
/// The largest relative error of a float approximation against a double reference over a set of
/// sample points, and where it is: the accuracy tests of the fast exp and sigmoid.

#include <cmath>
#include <vector>

namespace attend::testing {

/// The largest |approx(x) - reference(x)| / reference(x) over xs, and its x.
struct WorstRelativeError {
  double error = 0.0;
  float at = 0.0f;
};

template <class Approximation, class Reference>
WorstRelativeError worst_relative_error(const std::vector<float>& xs, Approximation approx, Reference reference) {
  WorstRelativeError worst;
  for (const float x : xs) {
    const double ref = reference(static_cast<double>(x));
    const double error = std::fabs(static_cast<double>(approx(x)) - ref) / ref;
    if (error > worst.error) worst = {error, x};
  }
  return worst;
}

}  // namespace attend::testing
