// Run by ctest under `mpirun -np K` (K = argv[1]): the communicator's collectives, and shard
// gradient sums over K ranks against the same sum on this process alone, bit for bit, for
// shard counts that are and are not multiples of K. Prints what differs; exit 1 on a failure.
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "attend/core/communicator.hpp"
#include "shard_gradients.hpp"

namespace {

int failures = 0;

void expect(bool ok, int rank, const std::string& what) {
  if (ok) return;
  std::cerr << "rank " << rank << ": " << what << '\n';
  ++failures;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace attend;
  const Communicator& world = Communicator::world();
  const int rank = world.rank(), size = world.size();
  const int expected_size = argc > 1 ? std::atoi(argv[1]) : 0;
  expect(size == expected_size, rank, "runs on " + std::to_string(size) + " ranks, expected " + std::to_string(expected_size));

  // Broadcast from the last rank; all-gather of lengths that differ by rank.
  std::vector<double> value = {rank == size - 1 ? 2.5 : -1.0};
  world.broadcast(std::span<double>(value), size - 1);
  expect(value[0] == 2.5, rank, "broadcast from the last rank");
  const std::vector<float> mine(static_cast<std::size_t>(rank + 1), static_cast<float>(rank));
  const std::vector<float> all = world.allgather(std::span<const float>(mine));
  std::size_t at = 0;
  for (int r = 0; r < size; ++r)
    for (int k = 0; k <= r; ++k) expect(at < all.size() && all[at++] == static_cast<float>(r), rank, "allgather order");
  expect(at == all.size(), rank, "allgather length");

  for (const int64_t S : {1, 2, 3, 4, 7, 8, 13}) {
    testing::ShardGradients distributed(S, 5000, 7), alone(S, 5000, 7);
    distributed.run(world);
    alone.run(Communicator::self());
    const std::span<const float> a = distributed.arena().grads(), b = alone.arena().grads();
    expect(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0, rank,
           std::to_string(S) + " shards: the sum over " + std::to_string(size) + " ranks differs from one rank's");
    // Per-shard values come back in shard order.
    const ShardRange own = shard_range(S, rank, size);
    std::vector<double> local;
    for (int64_t s = own.begin; s < own.end; ++s) local.push_back(static_cast<double>(s));
    const std::vector<double> gathered = gather_shard_values(world, S, local);
    for (int64_t s = 0; s < S; ++s) expect(gathered[s] == static_cast<double>(s), rank, "shard values out of order");
    // A batch step's loss: the shards' losses in shard order, whoever computed them.
    const auto shard_loss = [](int64_t s) { return s % 2 == 0 ? 1e16 * double(s + 1) : 0.1 * double(s); };
    ParameterArena& arena = distributed.arena();
    const double loss = sum_shard_losses_and_gradients(world, arena, S, shard_loss);
    double expected = 0.0;
    for (int64_t s = 0; s < S; ++s) expected += shard_loss(s);
    expect(loss == expected, rank, std::to_string(S) + " shards: the batch loss differs from the sum in shard order");
  }
  world.barrier();
  if (failures == 0 && world.is_root()) std::cout << "shard sums over " << size << " ranks equal one rank's bit for bit\n";
  return failures == 0 ? 0 : 1;
}
