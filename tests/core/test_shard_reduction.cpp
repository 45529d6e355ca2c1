#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <vector>

#include "attend/core/communicator.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/random.hpp"
#include "attend/core/shard_reduction.hpp"
#include "shard_gradients.hpp"

using namespace attend;
using attend::testing::ShardGradients;

namespace {

bool same_bits(const std::vector<float>& a, std::span<const float> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Whether `node` is a node of the bisection tree over [0, S).
bool is_tree_node(int64_t S, ShardRange node) {
  ShardRange at{0, S};
  while (true) {
    if (at == node) return true;
    if (at.size() <= 1 || node.begin < at.begin || node.end > at.end) return false;
    const int64_t mid = at.begin + at.size() / 2;
    if (node.end <= mid) {
      at = {at.begin, mid};
    } else if (node.begin >= mid) {
      at = {mid, at.end};
    } else {
      return false;
    }
  }
}

}  // namespace

TEST_CASE("shard ranges of K ranks cover the shards in order, contiguous and balanced", "[core]") {
  for (int64_t S : {1, 2, 5, 8, 13}) {
    for (int K = 1; K <= 10; ++K) {
      int64_t next = 0;
      for (int r = 0; r < K; ++r) {
        const ShardRange range = shard_range(S, r, K);
        CHECK(range.begin == next);
        CHECK(range.size() >= S / K);
        CHECK(range.size() <= S / K + 1);
        next = range.end;
      }
      CHECK(next == S);
    }
  }
}

TEST_CASE("a rank's range splits into tree nodes: one each when K is a power of two dividing S", "[core]") {
  for (int64_t S : {1, 3, 6, 8, 12, 16, 29}) {
    for (int K = 1; K <= 9; ++K) {
      for (int r = 0; r < K; ++r) {
        const ShardRange range = shard_range(S, r, K);
        const std::vector<ShardRange> nodes = tree_nodes_within(S, range);
        int64_t next = range.begin;
        for (const ShardRange& node : nodes) {
          CHECK(is_tree_node(S, node));
          CHECK(node.begin == next);
          next = node.end;
        }
        CHECK(next == range.end);
        const bool power_of_two = (K & (K - 1)) == 0;
        if (power_of_two && S % K == 0) CHECK(nodes.size() == 1);
      }
    }
  }
}

TEST_CASE("one rank's shard sum is the bisection tree's, not the running sum", "[core]") {
  for (int64_t S : {1, 2, 5, 8, 13}) {
    ShardGradients shards(S, 3001, 42);
    shards.run(Communicator::self());
    const std::vector<float> tree = shards.tree_reference();
    CHECK(same_bits(tree, shards.arena().grads()));
    // The order matters: a running sum differs in some bits once there are three shards.
    if (S >= 3) CHECK_FALSE(same_bits(shards.running_sum(), shards.arena().grads()));
  }
}

TEST_CASE("the shard sum has the same bits for 1 and 3 threads", "[core]") {
  ShardGradients shards(7, 40000, 5);  // more than two parallel blocks of the elementwise loops
  const int before = num_threads();
  set_num_threads(1);
  shards.run(Communicator::self());
  const std::vector<float> one(shards.arena().grads().begin(), shards.arena().grads().end());
  set_num_threads(3);
  shards.run(Communicator::self());
  set_num_threads(before);
  CHECK(same_bits(one, shards.arena().grads()));
}

TEST_CASE("a batch step returns the shards' losses summed in shard order beside the tree-summed gradient", "[core]") {
  ShardGradients shards(5, 100, 9);
  ParameterArena& arena = shards.arena();
  const std::vector<double> losses = {0.1, 1e16, -1e16, 0.2, 0.3};  // the order shows in the sum
  const double total = sum_shard_losses_and_gradients(Communicator::self(), arena, 5, [&](int64_t s) {
    arena.grads()[static_cast<std::size_t>(s)] = 1.0f;
    return losses[static_cast<std::size_t>(s)];
  });
  CHECK(total == (((0.1 + 1e16) + -1e16) + 0.2) + 0.3);
  for (int64_t i = 0; i < 100; ++i) CHECK(arena.grads()[static_cast<std::size_t>(i)] == (i < 5 ? 1.0f : 0.0f));
}

TEST_CASE("shard values come back in shard order", "[core]") {
  const std::vector<double> local = {1.5, -2.0, 3.25, 4.0};  // two shards, two values each
  CHECK(gather_shard_values(Communicator::self(), 2, local, 2) == local);
  CHECK_THROWS(gather_shard_values(Communicator::self(), 3, local, 2));
}

TEST_CASE("a plain process is one rank of one and never needs MPI", "[core]") {
  // ctest does not start this program under mpirun.
  const Communicator& world = Communicator::world();
  CHECK(world.rank() == 0);
  CHECK(world.size() == 1);
  CHECK(world.is_root());
  std::vector<float> data = {1.0f, 2.0f};
  world.broadcast(std::span<float>(data));
  world.barrier();
  CHECK(data == std::vector<float>{1.0f, 2.0f});
  CHECK(world.allgather(std::span<const float>(data)) == data);
}
