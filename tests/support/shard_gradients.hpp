#pragma once
/// Made-up shard gradients for the shard-reduction tests (in process and under mpirun): S
/// shards over an arena of P values, each value a normal draw times 2^k with k in [-12, 12],
/// so that the order of float additions shows in the bits.

#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "attend/core/parameter_arena.hpp"
#include "attend/core/random.hpp"
#include "attend/core/shard_reduction.hpp"

namespace attend::testing {

class ShardGradients {
 public:
  ShardGradients(int64_t num_shards, int64_t num_values, uint64_t seed)
      : arena_({{"w", Var(Tensor({num_values}, 0.0f), true)}}) {
    for (int64_t s = 0; s < num_shards; ++s) {
      Rng rng(mix64(seed ^ static_cast<uint64_t>(s)));
      std::vector<float>& g = shards_.emplace_back(static_cast<std::size_t>(num_values));
      for (float& v : g) v = std::ldexp(rng.normal(), static_cast<int>(rng.below(25)) - 12);
    }
  }

  ParameterArena& arena() { return arena_; }

  /// sum_shard_gradients over `comm`: shard s adds its gradient into the arena.
  void run(const Communicator& comm) {
    sum_shard_gradients(comm, arena_, static_cast<int64_t>(shards_.size()), [&](int64_t s) {
      std::span<float> grads = arena_.grads();
      const std::vector<float>& g = shards_[static_cast<std::size_t>(s)];
      for (std::size_t i = 0; i < g.size(); ++i) grads[i] += g[i];
    });
  }

  /// The bisection tree of shard_reduction.hpp, written out plainly.
  std::vector<float> tree_reference() const { return tree(0, static_cast<int64_t>(shards_.size())); }

  /// g_0 + g_1 + ... left to right: another order.
  std::vector<float> running_sum() const {
    std::vector<float> sum = shards_[0];
    for (std::size_t s = 1; s < shards_.size(); ++s)
      for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += shards_[s][i];
    return sum;
  }

 private:
  std::vector<float> tree(int64_t lo, int64_t hi) const {
    if (hi - lo == 1) return shards_[static_cast<std::size_t>(lo)];
    const int64_t mid = lo + (hi - lo) / 2;
    std::vector<float> left = tree(lo, mid);
    const std::vector<float> right = tree(mid, hi);
    for (std::size_t i = 0; i < left.size(); ++i) left[i] += right[i];
    return left;
  }

  std::vector<std::vector<float>> shards_;  // [S][P]
  ParameterArena arena_;
};

}  // namespace attend::testing
