#pragma once
/// Seeded random numbers whose output depends only on the seed: no standard-library
/// distribution is used, so results are the same with every compiler and library.

#include <cstdint>

namespace attend {

/// SplitMix64 finaliser (Steele, Lea & Flood, "Fast splittable pseudorandom number
/// generators", 2014): a bijective 64-bit mix. Inline: dropout calls it per element.
inline uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// A float uniform in [0, 1) made from the top 24 bits of `bits`.
inline float uniform_from_bits(uint64_t bits) {
  return static_cast<float>(bits >> 40) * (1.0f / 16777216.0f);  // 2^-24
}

/// Counter-based uniforms: element `index` of the stream `seed` is uniform in [0, 1) and
/// depends on nothing else, not on which thread asks or in what order, so dropout masks are
/// thread-count invariant. Make one per stream and call `at(index)` in loops.
class CounterStream {
 public:
  explicit CounterStream(uint64_t seed) : key_(mix64(seed)) {}
  float at(uint64_t index) const { return uniform_from_bits(mix64(key_ ^ index)); }

 private:
  uint64_t key_;
};

/// Element `index` of stream `seed` (the same value as CounterStream(seed).at(index)).
inline float counter_uniform(uint64_t seed, uint64_t index) { return CounterStream(seed).at(index); }

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
