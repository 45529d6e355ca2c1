#pragma once
/// NodeModelSpec: what `attend node-classify train --model` names: a built-in preset or a
/// JSON file with the layers (by registry name, with their options), the activation, the
/// optimizer and the training settings.
///
/// File layout (every key but "layers" optional):
///   {"layers": [{"type": "gat", "heads": 8, "out_channels": 8, "dropout": 0.6}, ...],
///    "activation": "elu",
///    "optimizer": {"type": "adam", "lr": 0.005, "weight_decay": 0.0005},
///    "epochs": 1000, "patience": 100, "stopping": "gat-reference", "normalize_features": true,
///    "jumping_knowledge": "none", "normalize_hidden": false, "clip_grad_norm": 0}
/// "stopping" names the early-stopping rule (attend/core/trainer.hpp): "gat-reference" (the
/// GAT authors' released code: validation loss and accuracy) or "gat-accuracy" (the rule the
/// authors used for their CiteSeer and PubMed numbers: validation accuracy only).
/// A layer's `in_channels` defaults to the previous layer's output (the dataset's features
/// for the first), the last layer's `out_channels` to the number of classes, and an option
/// given as "auto" (`num_relations`, `num_nodes`) is filled from the graph. A layer may carry
/// "weight_decay": an L2 term on that layer's parameters only (R-GCN's "L2 on the first
/// layer"), added to their gradients as the optimizer's own weight_decay adds it to all.
/// A layer may also carry "activation" (elu, relu or none): the one after that layer in place
/// of the model's (NodeClassifier; not on the last layer nor on a batch_norm).
/// "jumping_knowledge": "cat" makes the last layer read the concatenation of every hidden
/// layer's output (NodeClassifier); its `in_channels` then defaults to the sum of their widths.
/// "clip_grad_norm": scale the gradients so their global L2 norm is at most this (0: off).

#include <string>
#include <vector>

#include "attend/core/module.hpp"
#include "attend/core/trainer.hpp"
#include "attend/graph/graph_context.hpp"
#include "attend/graph/node_dataset.hpp"

namespace attend {
class Registry;
}

namespace attend::graph {

struct NodeModelSpec {
  std::string name;                 ///< preset name or file path
  Json layers = Json::array();      ///< [{"type", options...}] ("weight_decay" taken out)
  /// Per layer: coefficient of the extra L2 term (gradient += weight_decay * value); 0 = none.
  std::vector<double> layer_weight_decay;
  /// Per layer: the activation after it when the layer names one ("" = the model's).
  std::vector<std::string> layer_activation;
  std::string activation = "elu";
  Json optimizer = {{"type", "adam"}, {"lr", 0.005}, {"weight_decay", 5e-4}};
  int epochs = 1000;                ///< maximum epochs
  int patience = 100;               ///< early-stopping patience (GAT rule); 0 = off
  std::string stopping = "gat-reference";  ///< "gat-reference" or "gat-accuracy"
  bool normalize_features = true;   ///< scale each feature row to sum 1 (GAT's preprocessing)
  std::string jumping_knowledge = "none";  ///< "none" or "cat" (NodeClassifier)
  double clip_grad_norm = 0.0;      ///< global gradient-norm clip per step; 0 = off
  bool normalize_hidden = false;    ///< L2-normalise each hidden layer's output rows (NodeClassifier)

  /// Parse a spec; `source` names it in errors.
  static NodeModelSpec from_json(const Json& spec, const std::string& source);
  /// A preset name or a path to a JSON file.
  static NodeModelSpec load(const std::string& preset_or_path);
};

/// The trainer's rule for a spec's "stopping" name; throws InputError for an unknown name.
StoppingRule stopping_rule(const std::string& name);

/// The built-in presets, by name (the published models).
std::vector<std::string> preset_model_names();

/// The NodeClassifier config for `dataset` (see the file comment); each layer's init seed is
/// drawn from `seed` (a layer whose documented options have no "seed", such as batch_norm,
/// gets none). Layers are built through `registry` to learn their output widths.
Json resolve_model_config(const NodeModelSpec& spec, const NodeDataset& dataset,
                          const GraphContext& graph, uint64_t seed, const Registry& registry);

}  // namespace attend::graph
