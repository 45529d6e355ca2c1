#pragma once
/// Sampled mini-batch training of a node classifier (Hamilton et al., "Inductive
/// Representation Learning on Large Graphs" (GraphSAGE), NeurIPS 2017, Algorithm 2 and its
/// minibatch setting; the loop of PyTorch Geometric's NeighborLoader examples): an epoch is
/// one pass over the training nodes, shuffled, in batches of `batch_size` seeds; each batch
/// samples its seeds' computation graph (neighbor_sampler.hpp), reads its input rows through
/// one hook (NodeFeatureRows), runs the model on the sampled GraphContext (the layers do not
/// know it is sampled), takes the loss on the seed positions, and the trainer makes one
/// optimizer step. train_node_classifier (node_training.hpp) runs this loop when given
/// MiniBatchOptions.
///
/// Built so that the gradient of a batch can be computed piecewise on several processes
/// (data-parallel training) and come out the same:
/// - A batch is cut into `shards` fixed, contiguous pieces of its seeds (batch_shards). Each
///   shard is sampled and run on its own; the batch's gradient is the sum of the shards'.
/// - The loss of a shard is the sum over its seeds of the cross-entropy divided by the size
///   of the whole batch (not of the shard), so the shards' losses and gradients add up to the
///   batch's mean loss and its gradient.
/// - Every random choice is keyed, never drawn from a stream that advances with the work
///   done: the epoch's shuffle by (seed, epoch); the sample by (seed, batch number, hop, node)
///   (the sampler's counters); the dropout masks by (seed, batch number, shard). The batch
///   number counts over the run (epoch * batches per epoch + batch). A shard computed by
///   another process from the same seed and numbers draws the same numbers.
/// The shards' gradients are added in the fixed tree order of core's shard_reduction.hpp,
/// spread over the ranks of a Communicator (`mpirun -np K`, K <= shards) or all on this
/// process: the same `shards` gives the same bits whatever the number of processes.

#include <cstdint>
#include <vector>

#include "attend/core/autodiff.hpp"
#include "attend/core/communicator.hpp"
#include "attend/core/parameter_arena.hpp"
#include "attend/graph/graph_context.hpp"
#include "attend/graph/neighbor_sampler.hpp"
#include "attend/graph/node_classifier.hpp"

namespace attend::graph {

struct MiniBatchOptions {
  /// Fan-outs (one per message-passing layer of the model), replace and per_relation; the sampler's seed is
  /// derived from the run's seed (minibatch_keys), the one given here is ignored.
  NeighborSamplerOptions sampler;
  int64_t batch_size = 512;  ///< seed nodes per batch (the last batch of an epoch may be smaller)
  int64_t shards = 1;        ///< fixed pieces of each batch (see the file comment)
  /// Above 0: train on only the first max_batches batches of each epoch, numbered (and so
  /// sampled and dropped out) as in the whole epoch: a benchmark's short run on a large graph.
  int64_t max_batches = 0;
  /// The input rows of a batch's nodes; empty: the in-memory features (in_memory_rows).
  NodeFeatureRows feature_rows;
};

/// The keys of a run's random choices, derived from its seed.
struct MiniBatchKeys {
  uint64_t shuffle = 0;  ///< + epoch: the epoch's order of the training nodes
  uint64_t sampler = 0;  ///< NeighborSamplerOptions::seed (the batch number keys each batch)
  uint64_t dropout = 0;  ///< with the batch number and shard: the dropout masks
};
MiniBatchKeys minibatch_keys(uint64_t seed);

/// The batches of `epoch`: `train` shuffled by (keys.shuffle, epoch), cut into batch_size.
std::vector<std::vector<int64_t>> epoch_batches(const std::vector<int64_t>& train, int64_t batch_size,
                                                const MiniBatchKeys& keys, int epoch);

/// `batch` cut into `shards` contiguous pieces, the first (size % shards) one seed longer;
/// pieces may be empty when the batch has fewer seeds than shards.
std::vector<std::vector<int64_t>> batch_shards(const std::vector<int64_t>& batch, int64_t shards);

/// The loss of one shard, ready for backward: sample the computation graph of `seeds` (batch
/// number `batch`), read its rows through `rows`, run `model` (in training mode, dropout keyed
/// by (keys.dropout, batch, shard)) and return sum over the seeds of cross-entropy(logits,
/// labels) / `batch_size` (the size of the whole batch). labels [N] are the whole graph's.
Var shard_loss(const NodeClassifier& model, const GraphContext& graph, const std::vector<int64_t>& labels,
               const NodeFeatureRows& rows, const MiniBatchOptions& options, const MiniBatchKeys& keys,
               const std::vector<int64_t>& seeds, uint64_t batch, int64_t shard, int64_t batch_size);

/// One batch's gradient, left in `arena` (the model's parameters' arena; what it held is
/// replaced): shard_loss and backward for each shard, the shards spread over the ranks of
/// `comm` and their gradients summed in the tree order (sum_shard_losses_and_gradients).
/// Returns the batch's loss (the sum of the shards' losses in shard order: the mean
/// cross-entropy over the batch), the same on every rank. Collective.
double minibatch_gradient(const NodeClassifier& model, ParameterArena& arena, const Communicator& comm,
                          const GraphContext& graph, const std::vector<int64_t>& labels, const NodeFeatureRows& rows,
                          const MiniBatchOptions& options, const MiniBatchKeys& keys,
                          const std::vector<int64_t>& batch_seeds, uint64_t batch);

}  // namespace attend::graph
