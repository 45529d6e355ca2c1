#pragma once
/// NodeClassifier: a stack of node layers (any registered NodeLayer, built-in or plugin) with
/// an activation between them; the last layer's output is the class logits. Registered as
/// "node_classifier", so a checkpoint rebuilds the whole model through the registry.
///
/// Config: {"layers": [{"type": "gat", "config": {...}}, ...], "activation": "elu",
///          "jumping_knowledge": "cat"}.
/// "jumping_knowledge" (Xu et al., "Representation Learning on Graphs with Jumping Knowledge
/// Networks", ICML 2018, concatenation aggregator): absent or "none", each layer reads the
/// previous one's output; "cat", the hidden layers (all but the last) form a chain as before
/// and the last layer reads the concatenation of every hidden layer's activated output
/// [N, C_1 + ... + C_{L-1}], so the prediction sees each node's 1-hop, 2-hop, ... views
/// at once (the GNNExplainer authors' GCN; the head is usually a `node_linear`). Every layer
/// is still called as a NodeLayer on the same GraphContext.
/// "normalize_hidden": true divides each hidden layer's output row by its L2 norm before the
/// activation (the GNNExplainer authors' GCN, `normalize_embedding`); absent or false, not.
/// A layer that normalises the one before it (NodeLayer::normalizes_previous_layer, e.g.
/// batch_norm; neither first nor last) takes that layer's output before the activation, is
/// activated itself (layer, L2 normalisation, batch norm, activation: Ioffe & Szegedy's place
/// for it, before the nonlinearity), and under "cat" its output is concatenated in place of
/// the layer before's.
/// A layer entry may carry its own "activation" (elu, relu or none), replacing the model's
/// after that layer (after its normalising layer when one follows it); neither the last layer
/// nor a normalising one may carry one. The GNNExplainer authors' GCN concatenates its last
/// convolution without the ReLU ("activation": "none" on that convolution).
/// Parameters are named `layers.<i>.<name>`.

#include <memory>
#include <string>
#include <vector>

#include "attend/graph/node_layer.hpp"

namespace attend {
class Registry;
}

namespace attend::graph {

class NodeClassifier : public Module {
 public:
  /// Builds each layer through `registry`; every layer must be a NodeLayer and its input
  /// width must match the previous layer's output.
  NodeClassifier(const Json& config, const Registry& registry);

  std::string type_name() const override { return "node_classifier"; }
  Json config() const override { return config_; }

  /// x [N, F] -> logits [N, classes]. Layer i draws its dropout from mix64(seed + i).
  /// `attention`, when given, receives one entry per layer (empty weights for layers
  /// that do not attend).
  Var forward(const NodeFeatures& x, const GraphContext& graph, uint64_t seed,
              std::vector<AttentionExport>* attention = nullptr) const;

  /// Layer i alone, as `forward` runs it: its output [N, C_i], L2-normalised (with
  /// normalize_hidden) and activated unless it is the last layer. Layer-wise inference runs
  /// the model through this, one layer over all nodes at a time.
  Var layer_forward(std::size_t i, const NodeFeatures& h, const GraphContext& graph, uint64_t seed,
                    AttentionExport* attention = nullptr) const;
  /// Layer i's own forward as layer_forward runs it (the same dropout seed), before
  /// finish_layer: layer_forward = finish_layer(i, unfinished_layer_forward(...)).
  Var unfinished_layer_forward(std::size_t i, const NodeFeatures& h, const GraphContext& graph, uint64_t seed,
                               AttentionExport* attention = nullptr) const;
  /// What layer_forward does after layer i's own forward, on its output `out` [M, C_i]:
  /// L2 normalisation and the activation (nothing for the last layer). Row by row, so it
  /// commutes with taking rows of `out` (TargetForward keeps the rows it reads first).
  Var finish_layer(std::size_t i, const Var& out) const;
  /// Whether the last layer reads the concatenation of the hidden layers' outputs
  /// (jumping_knowledge "cat") instead of the previous layer's.
  bool concatenates_hidden() const { return concat_hidden_; }
  /// Whether layer i's output is part of what the head reads under "cat": a hidden layer not
  /// followed by a layer that normalises it.
  bool joins_head_input(std::size_t i) const;

  const std::vector<const NodeLayer*>& layers() const { return layers_; }
  /// The hops of the model's receptive field: its layers that pass messages
  /// (NodeLayer::passes_messages; a node_linear or batch_norm reads no other node). A sampled
  /// computation graph needs this many hops, one fan-out each.
  int message_passing_hops() const;

  /// Register "node_classifier" into `registry`; the factory builds layers from `registry`.
  static void register_into(Registry& registry);

 private:
  /// Whether layer i + 1 normalises layer i's output (no activation between them).
  bool followed_by_normalizer(std::size_t i) const;

  Json config_;
  std::string activation_;
  /// Per layer: the activation after it (after its normaliser), the model's unless overridden.
  std::vector<std::string> layer_activation_;
  bool concat_hidden_ = false;  ///< jumping_knowledge "cat"
  bool normalize_hidden_ = false;
  std::vector<const NodeLayer*> layers_;
};

}  // namespace attend::graph
