#pragma once
/// Data-parallel gradient sums with the same bits for any number of ranks.
///
/// A global batch is cut into a fixed number of shards S (chosen by the data, never by the
/// rank count K): families of a contact batch, slices of a node batch's seeds. Each shard's
/// gradient is computed on its own, starting from zero. The batch gradient is the sum of the
/// shard gradients in one fixed order, the bisection tree:
///
///     sum[lo, hi) = g_lo                              when hi - lo == 1
///                 = sum[lo, mid) + sum[mid, hi)        mid = lo + (hi - lo) / 2
///
/// Rank r of K owns the contiguous shards shard_range(S, K, r). It computes the tree's
/// largest subtrees that lie inside its range (one when K is a power of two dividing S, at
/// most about 2 log2(S / K) otherwise), all ranks all-gather those partial sums, and every
/// rank adds them up the rest of the tree. Every addition of the one-rank tree happens, with
/// the same operands, on some rank, so the result is bit-identical to one rank's for every
/// K <= S (ranks beyond S own no shard and contribute nothing), and identical on every rank.
///
/// Cost: a rank's shard gradients are computed one at a time into the arena, with one buffer
/// of the arena's size per tree level; communication is an all-gather of the ranks' partial
/// sums (K x P floats arrive at every rank for P parameters), not a reduction: see
/// docs/performance.md for what that costs at 8 and 64 ranks.

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "attend/core/communicator.hpp"
#include "attend/core/parameter_arena.hpp"

namespace attend {

/// Shards [begin, end).
struct ShardRange {
  int64_t begin = 0;
  int64_t end = 0;

  int64_t size() const { return end - begin; }
  bool operator==(const ShardRange&) const = default;
};

/// The shards rank `rank` of `size` owns: [floor(rank S / size), floor((rank + 1) S / size)).
ShardRange shard_range(int64_t num_shards, int rank, int size);

/// The largest nodes of the bisection tree over [0, num_shards) that lie inside `range`, left
/// to right; together they cover `range` exactly.
std::vector<ShardRange> tree_nodes_within(int64_t num_shards, ShardRange range);

/// Sum shard gradients over all ranks of `comm` into `arena.grads()`, the same bits on every
/// rank and for every rank count up to `num_shards` (the file comment). For each shard `s`
/// this rank owns, the arena's gradients are zeroed and `shard_gradient(s)` runs its forward
/// and backward passes (accumulating into the arena). Collective: every rank must call it with
/// the same `num_shards`. The arena's gradients on entry are discarded.
void sum_shard_gradients(const Communicator& comm, ParameterArena& arena, int64_t num_shards,
                         const std::function<void(int64_t shard)>& shard_gradient);

/// One data-parallel training step's batch: `shard_loss(s)` runs shard s's forward and
/// backward passes and returns its loss (the shard's part of the batch loss, e.g. the sum of
/// its examples' losses over the global batch size). The arena ends with the batch gradient
/// (`sum_shard_gradients`); the return value is the batch loss, the shards' losses summed in
/// shard order, the same on every rank. Collective. A mini-batch loop cuts its global batch of
/// B seeds into shards with `shard_range(B, s, num_shards)` (seeds [sB/S, (s+1)B/S)); any
/// random draw of a shard must be keyed by the batch and the shard, never by the rank.
double sum_shard_losses_and_gradients(const Communicator& comm, ParameterArena& arena, int64_t num_shards,
                                      const std::function<double(int64_t shard)>& shard_loss);

/// Every shard's value in shard order, on every rank: `local` holds this rank's shards'
/// values (shard_range order, `values_per_shard` each). A per-shard loss summed in shard order
/// afterwards has the same bits for any rank count. Collective.
std::vector<double> gather_shard_values(const Communicator& comm, int64_t num_shards, std::span<const double> local,
                                        int64_t values_per_shard = 1);

}  // namespace attend
