#include "attend/core/shard_reduction.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "attend/core/error.hpp"
#include "attend/core/parallel.hpp"

namespace attend {

namespace {

constexpr int64_t kBlock = 16384;  // elementwise loops: fixed blocks, any thread count

int64_t middle(ShardRange node) { return node.begin + node.size() / 2; }

void collect_nodes(ShardRange node, ShardRange range, std::vector<ShardRange>& out) {
  if (node.end <= range.begin || node.begin >= range.end) return;
  if (range.begin <= node.begin && node.end <= range.end) {
    out.push_back(node);
    return;
  }
  const int64_t mid = middle(node);
  collect_nodes({node.begin, mid}, range, out);
  collect_nodes({mid, node.end}, range, out);
}

void copy_into(std::span<float> out, std::span<const float> in) {
  parallel_for_blocks(static_cast<int64_t>(out.size()), kBlock,
                      [&](int64_t lo, int64_t hi) { std::copy(in.begin() + lo, in.begin() + hi, out.begin() + lo); });
}

void add_into(std::span<float> out, std::span<const float> in) {
  parallel_for_blocks(static_cast<int64_t>(out.size()), kBlock, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) out[i] += in[i];
  });
}

// Sums of bisection-tree nodes into caller buffers; the right child of a node at depth d is
// summed into scratch[d], so one buffer per level is enough.
class TreeSummer {
 public:
  explicit TreeSummer(int64_t width) : width_(width) {}

  // `out` = sum of `node`, its leaves (or known subtrees) given by `leaf`, which fills `out`
  // with a node's value and returns true, or returns false for a node to split further.
  template <class Leaf>
  void sum(ShardRange node, std::span<float> out, std::size_t depth, const Leaf& leaf) {
    if (leaf(node, out)) return;
    ATTEND_CHECK(node.size() > 1, "shard " << node.begin << " has no gradient on any rank");
    const int64_t mid = middle(node);
    sum({node.begin, mid}, out, depth + 1, leaf);
    std::span<float> right = scratch(depth);
    sum({mid, node.end}, right, depth + 1, leaf);
    add_into(out, right);
  }

 private:
  std::span<float> scratch(std::size_t depth) {
    if (levels_.size() <= depth) levels_.resize(depth + 1);
    levels_[depth].resize(static_cast<std::size_t>(width_));
    return levels_[depth];
  }

  int64_t width_;
  std::vector<std::vector<float>> levels_;
};

}  // namespace

ShardRange shard_range(int64_t num_shards, int rank, int size) {
  ATTEND_CHECK(num_shards >= 0 && size >= 1 && rank >= 0 && rank < size,
               "shard_range(" << num_shards << ", " << rank << ", " << size << ")");
  return {num_shards * rank / size, num_shards * (rank + 1) / size};
}

std::vector<ShardRange> tree_nodes_within(int64_t num_shards, ShardRange range) {
  ATTEND_CHECK(0 <= range.begin && range.begin <= range.end && range.end <= num_shards,
               "shards [" << range.begin << ", " << range.end << ") outside [0, " << num_shards << ")");
  std::vector<ShardRange> nodes;
  if (range.size() > 0) collect_nodes({0, num_shards}, range, nodes);
  return nodes;
}

void sum_shard_gradients(const Communicator& comm, ParameterArena& arena, int64_t num_shards,
                         const std::function<void(int64_t shard)>& shard_gradient) {
  ATTEND_CHECK(num_shards >= 1, "a batch needs at least one shard, got " << num_shards);
  const int64_t P = arena.size();
  TreeSummer summer(P);
  // This rank's subtrees: leaves are shard gradients computed in the arena.
  const auto compute_leaf = [&](ShardRange node, std::span<float> out) {
    if (node.size() != 1) return false;
    arena.zero_grad();
    shard_gradient(node.begin);
    copy_into(out, arena.grads());
    return true;
  };
  const std::vector<ShardRange> own = tree_nodes_within(num_shards, shard_range(num_shards, comm.rank(), comm.size()));
  std::vector<float> partials(own.size() * static_cast<std::size_t>(P));  // [own nodes, P]
  for (std::size_t k = 0; k < own.size(); ++k) {
    summer.sum(own[k], std::span<float>(partials).subspan(k * P, P), 0, compute_leaf);
  }
  const std::vector<float> gathered = comm.allgather(std::span<const float>(partials));  // [all nodes, P]

  // Where each rank's subtree sums lie in `gathered` (every rank derives the same map).
  std::map<std::pair<int64_t, int64_t>, std::size_t> offsets;
  std::size_t offset = 0;
  for (int r = 0; r < comm.size(); ++r) {
    for (const ShardRange& node : tree_nodes_within(num_shards, shard_range(num_shards, r, comm.size()))) {
      offsets[{node.begin, node.end}] = offset;
      offset += static_cast<std::size_t>(P);
    }
  }
  ATTEND_CHECK(offset == gathered.size(), "gathered " << gathered.size() << " gradient values, expected " << offset);
  const auto known_subtree = [&](ShardRange node, std::span<float> out) {
    const auto it = offsets.find({node.begin, node.end});
    if (it == offsets.end()) return false;
    copy_into(out, std::span<const float>(gathered).subspan(it->second, static_cast<std::size_t>(P)));
    return true;
  };
  std::vector<float> total(static_cast<std::size_t>(P));  // [P]
  summer.sum({0, num_shards}, total, 0, known_subtree);
  copy_into(arena.grads(), total);
}

double sum_shard_losses_and_gradients(const Communicator& comm, ParameterArena& arena, int64_t num_shards,
                                      const std::function<double(int64_t shard)>& shard_loss) {
  const ShardRange own = shard_range(num_shards, comm.rank(), comm.size());
  std::vector<double> losses(static_cast<std::size_t>(own.size()), 0.0);  // this rank's shards
  sum_shard_gradients(comm, arena, num_shards,
                      [&](int64_t s) { losses[static_cast<std::size_t>(s - own.begin)] = shard_loss(s); });
  double total = 0.0;
  for (const double loss : gather_shard_values(comm, num_shards, losses)) total += loss;  // shard order
  return total;
}

std::vector<double> gather_shard_values(const Communicator& comm, int64_t num_shards, std::span<const double> local,
                                        int64_t values_per_shard) {
  const ShardRange own = shard_range(num_shards, comm.rank(), comm.size());
  ATTEND_CHECK(static_cast<int64_t>(local.size()) == own.size() * values_per_shard,
               "rank " << comm.rank() << " owns " << own.size() << " shards of " << values_per_shard
                       << " values, got " << local.size() << " values");
  std::vector<double> all = comm.allgather(local);  // ranks own consecutive ranges: shard order
  ATTEND_CHECK(static_cast<int64_t>(all.size()) == num_shards * values_per_shard,
               "gathered " << all.size() << " shard values, expected " << num_shards * values_per_shard);
  return all;
}

}  // namespace attend
