#include "attend/graph/minibatch_training.hpp"

#include <string>

#include "attend/core/error.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/ops/loss.hpp"
#include "attend/core/random.hpp"
#include "attend/core/shard_reduction.hpp"

namespace attend::graph {

MiniBatchKeys minibatch_keys(uint64_t seed) {
  // Distinct constants per purpose, so the three families of draws are unrelated.
  return {mix64(seed ^ 0x5348554646ULL), mix64(seed ^ 0x53414d504cULL), mix64(seed ^ 0x44524f50ULL)};
}

std::vector<std::vector<int64_t>> epoch_batches(const std::vector<int64_t>& train, int64_t batch_size,
                                                const MiniBatchKeys& keys, int epoch) {
  return seed_batches(train, batch_size, true, mix64(keys.shuffle + static_cast<uint64_t>(epoch)));
}

std::vector<std::vector<int64_t>> batch_shards(const std::vector<int64_t>& batch, int64_t shards) {
  if (shards < 1) throw InputError("a batch needs at least one shard, got " + std::to_string(shards));
  const auto size = static_cast<int64_t>(batch.size());
  std::vector<std::vector<int64_t>> out;
  int64_t begin = 0;
  for (int64_t s = 0; s < shards; ++s) {
    const int64_t end = begin + size / shards + (s < size % shards ? 1 : 0);
    out.emplace_back(batch.begin() + begin, batch.begin() + end);
    begin = end;
  }
  return out;
}

Var shard_loss(const NodeClassifier& model, const GraphContext& graph, const std::vector<int64_t>& labels,
               const NodeFeatureRows& rows, const MiniBatchOptions& o, const MiniBatchKeys& keys,
               const std::vector<int64_t>& seeds, uint64_t batch, int64_t shard, int64_t batch_size) {
  NeighborSamplerOptions sampler = o.sampler;
  sampler.seed = keys.sampler;
  const SampledSubgraph s = sample_neighbors(graph, seeds, sampler, batch);
  std::vector<int64_t> local_labels(s.node_ids.size(), -1);  // [n]; only the seeds' are read
  for (int64_t p : s.seed_positions) local_labels[p] = labels[s.node_ids[p]];
  const uint64_t dropout_seed = mix64(mix64(keys.dropout + batch) + static_cast<uint64_t>(shard));
  const Var logits = model.forward(rows(s.node_ids), s.graph, dropout_seed);  // [n, C]
  // The mean over the shard's seeds, rescaled to their sum over the whole batch's size.
  return ops::scale(ops::cross_entropy(logits, local_labels, s.seed_positions),
                    static_cast<float>(seeds.size()) / static_cast<float>(batch_size));
}

double minibatch_gradient(const NodeClassifier& model, ParameterArena& arena, const Communicator& comm,
                          const GraphContext& graph, const std::vector<int64_t>& labels, const NodeFeatureRows& rows,
                          const MiniBatchOptions& o, const MiniBatchKeys& keys,
                          const std::vector<int64_t>& batch_seeds, uint64_t batch) {
  const std::vector<std::vector<int64_t>> shards = batch_shards(batch_seeds, o.shards);
  const auto batch_size = static_cast<int64_t>(batch_seeds.size());
  return sum_shard_losses_and_gradients(comm, arena, o.shards, [&](int64_t k) {
    const std::vector<int64_t>& seeds = shards[static_cast<std::size_t>(k)];
    if (seeds.empty()) return 0.0;
    Var shard = shard_loss(model, graph, labels, rows, o, keys, seeds, batch, k, batch_size);
    shard.backward();
    return static_cast<double>(shard.value().item());
  });
}

}  // namespace attend::graph
