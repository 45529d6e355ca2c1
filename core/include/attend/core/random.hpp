#pragma once
/// Seeded random numbers whose output depends only on the seed: no standard-library
/// distribution is used, so results are the same with every compiler and library.

#include <cstdint>

namespace attend {

/// SplitMix64 finaliser (Steele, Lea & Flood, "Fast splittable pseudorandom number
/// generators", 2014): a bijective 64-bit mix.
uint64_t mix64(uint64_t x);

/// A float uniform in [0, 1) made from the top 24 bits of `bits`.
float uniform_from_bits(uint64_t bits);

/// Counter-based uniform in [0, 1) for element `index` of stream `seed`: the value does not
/// depend on which thread asks or in what order, so dropout masks are thread-count invariant.
float counter_uniform(uint64_t seed, uint64_t index);

/// xoshiro256** (Blackman & Vigna, 2018), seeded through SplitMix64.
class Rng {
 public:
  explicit Rng(uint64_t seed = 0);

  uint64_t next_u64();
  /// Uniform in [0, 1).
  float uniform();
  /// Uniform in [lo, hi).
  float uniform(float lo, float hi);
  /// Standard normal by the Box-Muller transform.
  float normal();
  /// Uniform integer in [0, n), unbiased (rejection sampling); n > 0.
  uint64_t below(uint64_t n);
  /// A fresh 64-bit seed for a sub-stream (dropout, shuffling) drawn from this generator.
  uint64_t split() { return next_u64(); }

 private:
  uint64_t s_[4];
};

}  // namespace attend
