#pragma once
/// NodeLinear: an affine map applied to every node on its own, x'_i = x_i W + b, registered
/// as "node_linear". It reads no edge: it is the prediction head of a jumping-knowledge
/// network (Xu et al., "Representation Learning on Graphs with Jumping Knowledge Networks",
/// ICML 2018) and of the GNNExplainer authors' GCN, which classify each node from the
/// concatenated outputs of the graph layers below (NodeClassifier's "jumping_knowledge").
/// A NodeLayer like the others, so it stacks, saves and loads through the same registry.

#include <cstdint>

#include "attend/core/option_list.hpp"
#include "attend/graph/node_layer.hpp"

namespace attend {
class Registry;
}

namespace attend::graph {

/// The JSON config, same keys.
struct NodeLinearOptions {
  int64_t in_channels = 0;     ///< input features (required)
  int64_t out_channels = 0;    ///< output features (required)
  bool bias = true;
  float input_dropout = 0.0f;  ///< dropout on the input features (training)
  uint64_t seed = 0;           ///< seeds the Glorot initialisation

  /// The options above as the JSON config's keys, with their ranges and meanings.
  static const OptionList<NodeLinearOptions>& option_list();
  static NodeLinearOptions from_json(const Json& config);
  Json to_json() const;
};

/// Parameters: weight [in, C] (Glorot uniform), bias [C] (zeros).
/// Forward: x [N, in] -> x W + b [N, C]; the graph is not read.
class NodeLinear : public NodeLayer {
 public:
  explicit NodeLinear(NodeLinearOptions options);
  std::string type_name() const override { return "node_linear"; }
  Json config() const override { return options_.to_json(); }
  /// `graph` and `attention` are left untouched (the layer passes no messages).
  Var forward(const NodeFeatures& x, const GraphContext& graph, uint64_t seed,
              AttentionExport* attention = nullptr) const override;
  int64_t out_features() const override { return options_.out_channels; }
  bool passes_messages() const override { return false; }

  static void register_into(Registry& registry);

 private:
  NodeLinearOptions options_;
  Var weight_, bias_;
};

}  // namespace attend::graph
