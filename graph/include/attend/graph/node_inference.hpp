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
/// Layer-wise and full give the same predictions up to float rounding: a node's attention
/// softmax and aggregation run over the same in-edges in the same order, but the dense
/// projections x W are computed over other row blocks, whose GEMM blocking may round
/// differently (tests/graph/test_node_inference.cpp states the tolerance it checks).
/// Sampled inference with every fan-out -1 is the same computation graph as layer-wise.

#include <cstdint>
#include <string>
#include <vector>

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
  /// sampled: fan-outs (one per layer), replace, per_relation and the sampling seed.
  NeighborSamplerOptions sampler;
  /// layerwise, sampled: the rows of the input features; empty: the in-memory features.
  NodeFeatureRows feature_rows;
};

/// Class logits [nodes.size(), C] of `nodes` (distinct node ids of `graph`, in that order) in
/// evaluation mode (the model is switched to it) and without gradients, computed as `options` says. `features` [N, F] are
/// the whole graph's input (full mode, and the other modes when options.feature_rows is
/// empty). Throws attend::InputError for a batch size below 1, for sampled inference whose
/// fan-outs are not one per layer, and for layer-wise inference of a model with a layer that
/// is not 1-hop (graphormer).
Tensor infer_node_logits(NodeClassifier& model, const GraphContext& graph, const NodeFeatures& features,
                         const std::vector<int64_t>& nodes, const InferenceOptions& options);

/// Throws attend::InputError unless `fanouts` has one entry per layer of `model` (a sampled
/// computation graph has one hop per layer).
void check_fanouts_fit(const NodeClassifier& model, const std::vector<int64_t>& fanouts);

}  // namespace attend::graph
