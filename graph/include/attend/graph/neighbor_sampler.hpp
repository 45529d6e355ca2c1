#pragma once
/// Neighbour sampling for mini-batch training and inference (Hamilton et al., "Inductive
/// Representation Learning on Large Graphs" (GraphSAGE), NeurIPS 2017, Algorithm 2; the
/// per-hop fan-outs of PyTorch Geometric's NeighborLoader): from a batch of seed nodes, hop
/// by hop, each node reached for the first time gets a sample of its in-edges in the whole
/// graph's `plain` view, and the union of the sampled edges is the batch's computation graph.
///
/// The result is an ordinary GraphContext over local node ids (seeds first), so every node
/// layer runs on it unchanged; `node_ids` and `edge_ids` map it back to the whole graph.
/// With every fan-out -1 it is the exact L-hop computation graph of the seeds, and an L-layer
/// model of message-passing layers gives the seeds the outputs it gives them on the whole
/// graph (GCN included: the context carries the whole graph's in-degrees for its
/// normalisation). The whole graph's edge features, if any, come with the sampled edges (their
/// rows by `edge_ids`). Graphormer, which attends over all node pairs, sees only the sample.
///
/// Random choices come from counters keyed by (seed, batch, hop, node): the sample does not
/// depend on the thread count or on the order in which nodes are visited.

#include <cstdint>
#include <functional>
#include <vector>

#include "attend/graph/graph_context.hpp"
#include "attend/graph/node_features.hpp"

namespace attend::graph {

struct NeighborSamplerOptions {
  /// Per hop from the seeds outwards (PyG's num_neighbors): fanouts[0] in-edges for each
  /// seed, fanouts[1] for each node first reached at hop 1, ...; -1 = all of them. One hop
  /// per message-passing layer of the model that will run on the sample
  /// (NodeClassifier::message_passing_hops).
  std::vector<int64_t> fanouts;
  /// Draw with replacement: exactly `fanout` edges per node (an edge may repeat, as a
  /// parallel edge of the sample). Without: min(fanout, degree) distinct edges.
  bool replace = false;
  /// Typed graphs: false, the fan-out counts a node's in-edges over all relations together
  /// (inverse relations included); true, it applies to each relation's in-edges separately
  /// (a node keeps up to `fanout` edges of every relation it has).
  bool per_relation = false;
  uint64_t seed = 0;
};

/// One batch's computation graph.
struct SampledSubgraph {
  GraphContext graph;                  ///< over local node ids 0..n-1
  std::vector<int64_t> node_ids;       ///< [n] whole-graph id of each local node; the seeds come first
  std::vector<int64_t> edge_ids;       ///< [E] whole-graph `plain` edge id of each local `plain` edge
  std::vector<int64_t> seed_positions; ///< [B] local id of each seed, in the order given
  std::vector<int64_t> hop;            ///< [n] the hop at which each local node was first reached (seeds: 0)
};

/// Sample the computation graph of `seeds` (distinct node ids of `graph`) for batch number
/// `batch`. Throws attend::InputError for an empty fan-out list, a fan-out of 0 or below -1,
/// or a repeated or out-of-range seed.
SampledSubgraph sample_neighbors(const GraphContext& graph, const std::vector<int64_t>& seeds,
                                 const NeighborSamplerOptions& options, uint64_t batch = 0);

/// Cut `nodes` into batches of at most `batch_size`, in the given order or, with `shuffle`,
/// after a Fisher-Yates shuffle seeded with `seed` (attend::Rng).
std::vector<std::vector<int64_t>> seed_batches(std::vector<int64_t> nodes, int64_t batch_size, bool shuffle,
                                               uint64_t seed);

/// The rows of `features` (the whole graph's [N, F]) for a sample's nodes: [n, F], a constant
/// sparse matrix for sparse input (for featureless graphs, the rows of the identity), a
/// row gather (gradients flow back to the whole matrix) for dense input.
NodeFeatures sampled_features(const NodeFeatures& features, const std::vector<int64_t>& node_ids);

/// Where a mini-batch's input rows come from: node ids [n] -> their features [n, F]. The one
/// point at which sampled training and inference read input features, so that rows read from
/// a file instead of memory plug in there.
using NodeFeatureRows = std::function<NodeFeatures(const std::vector<int64_t>& node_ids)>;

/// The rows of a feature matrix held in memory (sampled_features); `features` is shared, not
/// copied.
NodeFeatureRows in_memory_rows(NodeFeatures features);

}  // namespace attend::graph
