#pragma once
// A tiny synthetic contact family for the contact-model tests: random sequences, a planted set
// of contacts, and coevolution scores that are the contacts plus noise (tests only).

#include <cstdint>

#include "attend/bio/alphabet.hpp"
#include "attend/bio/contact_training.hpp"
#include "attend/core/random.hpp"

namespace attend::testing {

/// L residues, N sequences; pairs with |i - j| >= 4 and (i + j) % 4 == 0 are contacts; every
/// pair is evaluable; scores are 1 for contacts and 0 otherwise, plus noise of scale `noise`.
inline bio::TrainingFamily synthetic_family(int64_t L, int64_t N, uint64_t seed, float noise = 0.5f) {
  Rng rng(seed);
  bio::AlignmentFeatures a;
  a.alignment.length = L;
  for (int64_t n = 0; n < N; ++n) {
    a.alignment.names.push_back("s" + std::to_string(n));
    for (int64_t i = 0; i < L; ++i) a.alignment.codes.push_back(static_cast<uint8_t>(rng.below(bio::kNumStates)));
  }
  a.weights.assign(static_cast<std::size_t>(N), 1.0f);
  a.n_eff = static_cast<double>(N);
  bio::ContactMap truth(L);
  a.scores = Tensor({L, L}, 0.0f);
  for (int64_t i = 0; i < L; ++i)
    for (int64_t j = i + 1; j < L; ++j) {
      const bool contact = j - i >= 4 && (i + j) % 4 == 0;
      truth.set(i, j, contact ? 5.0f : 12.0f, contact);
      const float s = (contact ? 1.0f : 0.0f) + noise * rng.uniform(-1.0f, 1.0f);
      a.scores[i * L + j] = a.scores[j * L + i] = s;
    }
  return {bio::make_family_features(a, "synthetic" + std::to_string(seed)), truth};
}

}  // namespace attend::testing
