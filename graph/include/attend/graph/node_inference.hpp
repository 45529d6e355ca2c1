#pragma once
/// Node-classifier inference in three modes, for graphs whose activations do not fit at once:
///
/// - `full`: one forward pass over the whole graph (what training has always done).
/// - `layerwise`: exact, as PyTorch Geometric's `inference` loops (the GraphSAGE and GAT
///   examples): layer by layer, every node's output of layer i is computed in node batches,
///   each batch on the 1-hop computation graph of its nodes with all their in-neighbours
///   (sample_neighbors with fan-out -1), reading layer i-1's output of all nodes. Peak memory
///   is one layer's output of all nodes plus one batch's 1-hop graph, not L layers of
///   activations of the whole graph. Needs layers whose output depends only on in-neighbours
///   (NodeLayer::reads_in_neighbors_only: not graphormer); jumping knowledge is supported (the
///   head reads the stored hidden outputs).
/// - `sampled`: each batch of target nodes runs the whole model on its sampled computation
///   graph (neighbor_sampler.hpp, the training fan-outs or others), as NeighborLoader
///   evaluation does; approximate, and random but fixed for the options' seed.
///
/// Layer-wise and full give the same logits up to float rounding, not bit for bit: a batch's
/// 1-hop graph numbers its nodes locally (the batch first), and a node's in-edges are summed
/// (softmax, aggregation, sparse products) in the order of those local ids, not the whole
/// graph's. The differences are of the order of one rounding step (about 1e-7 on logits of
/// order 1 in tests/graph/test_node_inference.cpp, which checks 2e-6); a single batch of all
/// nodes in order numbers them as the whole graph does and gives the same bits.
/// Sampled inference with every fan-out -1 is the same computation graph as layer-wise.

#include <cstdint>
#include <string>
#include <vector>

#include "attend/core/communicator.hpp"
#include "attend/core/tensor.hpp"
#include "attend/graph/graph_context.hpp"
#include "attend/graph/neighbor_sampler.hpp"
#include "attend/graph/node_classifier.hpp"
#include "attend/graph/node_features.hpp"

namespace attend::graph {

enum class InferenceMode { kFull, kLayerwise, kSampled };

/// "full", "layerwise" or "sampled"; another name is an attend::InputError listing them.
InferenceMode inference_mode(const std::string& name);
std::string inference_mode_name(InferenceMode mode);

struct InferenceOptions {
  InferenceMode mode = InferenceMode::kFull;
  /// Target nodes per batch (layerwise, sampled).
  int64_t batch_size = 4096;
  /// sampled: fan-outs (one per message-passing layer), replace, per_relation and the sampling seed.
  NeighborSamplerOptions sampler;
  /// layerwise, sampled: the rows of the input features; empty: the in-memory features.
  NodeFeatureRows feature_rows;
};

/// Class logits [nodes.size(), C] of `nodes` (distinct node ids of `graph`, in that order) in
/// evaluation mode (the model is switched to it) and without gradients, computed as `options` says. `features` [N, F] are
/// the whole graph's input (full mode, and the other modes when options.feature_rows is
/// empty). Throws attend::InputError for a batch size below 1, for sampled inference whose
/// fan-outs are not one per message-passing layer (check_fanouts_fit), and for layer-wise inference of a model with a layer that
/// is not 1-hop (graphormer).
Tensor infer_node_logits(NodeClassifier& model, const GraphContext& graph, const NodeFeatures& features,
                         const std::vector<int64_t>& nodes, const InferenceOptions& options);

/// As above, the work spread over the ranks of `comm` where the mode allows it: sampled
/// inference gives each rank a contiguous share of the batches (each keyed by its number, as
/// in one process) and all-gathers their logits; layer-wise inference does so for every
/// layer's batches, all-gathering each layer's output of all nodes before the next layer.
/// Every rank returns the bits one process computes. Full inference runs whole on every
/// rank. Collective.
Tensor infer_node_logits(NodeClassifier& model, const GraphContext& graph, const NodeFeatures& features,
                         const std::vector<int64_t>& nodes, const InferenceOptions& options, const Communicator& comm);

/// Throws attend::InputError unless `fanouts` has one entry per message-passing layer of
/// `model` (NodeClassifier::message_passing_hops: a sampled computation graph has one hop per
/// layer that reads neighbours; node_linear and batch_norm read none).
void check_fanouts_fit(const NodeClassifier& model, const std::vector<int64_t>& fanouts);

/// Fan-outs as given for `model`, made one per message-passing hop. Before session 11
/// `--fanouts` took one per layer, counting node_linear and batch_norm, and the sampler drew
/// that many hops, of which the model read only the first message_passing_hops() (a hop's
/// draws do not depend on later hops'). A list of that old length (one per layer, when it
/// differs from the hops) is therefore mapped to its first message_passing_hops() entries,
/// which draw the same edges for the hops the model reads (the logits agree up to float
/// rounding; a batch_norm's training statistics now cover only those hops' nodes); `note`
/// then says so, for the log.
struct ModelFanouts {
  std::vector<int64_t> fanouts;  ///< one per message-passing hop
  std::string note;              ///< empty unless an old per-layer list was mapped
};
/// Throws attend::InputError for another count, or for a model that passes no messages (a
/// sampled computation graph would be the seeds alone: train it full-batch).
ModelFanouts model_fanouts(const NodeClassifier& model, const std::vector<int64_t>& fanouts);

/// Throws what infer_node_logits would throw for `model` and `options` (the batch size, the
/// fan-out count, a layer that is not 1-hop), before any work: training checks its
/// evaluation mode with it before the first epoch.
void check_inference_fits(const NodeClassifier& model, const InferenceOptions& options);

}  // namespace attend::graph
