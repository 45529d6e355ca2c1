#pragma once
/// Fidelity+ and fidelity- (Amara et al. 2022, GraphFramEx) of hard explanations, as PyTorch
/// Geometric's explain.metric.fidelity computes them for explanations of the model:
///   fid+ = 1 - mean over targets of [class with the explanation removed == predicted class]
///   fid- = 1 - mean over targets of [class with only the explanation kept == predicted class]
/// (high fid+: the explanation is necessary; low fid-: it is sufficient), and their
/// characterization score, the weighted harmonic mean of fid+ and 1 - fid-:
///   charact = (w+ + w-) / (w+ / fid+ + w- / (1 - fid-)).

#include <cstdint>
#include <vector>

namespace attend::graph {

struct Fidelity {
  double plus = 0.0, minus = 0.0;
};

/// Classes per target: predicted on the whole input, with the explanation removed
/// (complement), with only the explanation kept. Throws attend::Error on unequal lengths or
/// no target.
Fidelity fidelity(const std::vector<int64_t>& predicted, const std::vector<int64_t>& complement,
                  const std::vector<int64_t>& explanation);

/// NaN when fid+ = 0 or fid- = 1 (a term of the harmonic mean is infinite).
double characterization_score(const Fidelity& f, double positive_weight = 0.5, double negative_weight = 0.5);

}  // namespace attend::graph
