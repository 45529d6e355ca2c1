#pragma once
// A planted Potts model and Gibbs-sampled alignments from it, for the contact predictor tests
// (tests only).

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "attend/bio/alignment.hpp"
#include "attend/bio/alphabet.hpp"
#include "attend/core/random.hpp"

namespace attend::testing {

// A Potts model over L positions and 21 states with random weak fields and three strongly
// coupled pairs that favour equal amino acids.
struct PlantedModel {
  int64_t L = 14;
  std::vector<std::pair<int64_t, int64_t>> pairs{{0, 9}, {3, 12}, {5, 7}};
  std::vector<double> h;  // [L, 21]
  double strength = 2.5;

  double coupling(int64_t i, int64_t j, int s, int t) const {
    if (s != t || s == bio::kGapCode) return 0.0;
    for (auto [a, b] : pairs)
      if ((a == i && b == j) || (a == j && b == i)) return strength;
    return 0.0;
  }
};

// Gibbs sampling (one chain, burn-in, then one sample every `thin` sweeps) with attend::Rng.
inline bio::Alignment sample_alignment(const PlantedModel& model, int64_t n, uint64_t seed) {
  Rng rng(seed);
  const int64_t L = model.L;
  std::vector<uint8_t> x(static_cast<std::size_t>(L));
  for (auto& c : x) c = static_cast<uint8_t>(rng.below(bio::kNumStates));
  bio::Alignment a;
  a.length = L;
  const int burn_in = 200, thin = 4;
  double p[bio::kNumStates];
  for (int64_t sweep = 0; static_cast<int64_t>(a.names.size()) < n; ++sweep) {
    for (int64_t i = 0; i < L; ++i) {
      double z = 0.0;
      for (int s = 0; s < bio::kNumStates; ++s) {
        double e = model.h[static_cast<std::size_t>(i * bio::kNumStates + s)];
        for (int64_t j = 0; j < L; ++j)
          if (j != i) e += model.coupling(i, j, s, x[j]);
        p[s] = std::exp(e);
        z += p[s];
      }
      double u = rng.uniform() * z;
      int s = 0;
      while (s < bio::kNumStates - 1 && u >= p[s]) u -= p[s++];
      x[i] = static_cast<uint8_t>(s);
    }
    if (sweep >= burn_in && (sweep - burn_in) % thin == 0) {
      a.names.push_back(std::to_string(a.names.size()));
      a.codes.insert(a.codes.end(), x.begin(), x.end());
    }
  }
  return a;
}

inline PlantedModel planted_model(uint64_t seed) {
  PlantedModel m;
  Rng rng(seed);
  m.h.resize(static_cast<std::size_t>(m.L * bio::kNumStates));
  for (auto& v : m.h) v = 0.5 * rng.normal();
  return m;
}

}  // namespace attend::testing
