#pragma once
/// BatchNorm: batch normalisation of node features (Ioffe & Szegedy, "Batch Normalization:
/// Accelerating Deep Network Training by Reducing Internal Covariate Shift", ICML 2015),
/// registered as "batch_norm". Options and running averages follow PyTorch's BatchNorm1d.
/// In a NodeClassifier it normalises the layer before it: the activation comes after it
/// (NodeLayer::normalizes_previous_layer).

#include <cstdint>

#include "attend/core/option_list.hpp"
#include "attend/graph/node_layer.hpp"

namespace attend {
class Registry;
}

namespace attend::graph {

/// The JSON config, same keys.
struct BatchNormOptions {
  int64_t in_channels = 0;  ///< features (required); the output has as many
  float momentum = 0.1f;    ///< weight of the batch in each running-average update
  float eps = 1e-5f;        ///< added to the variance before the square root

  /// The options above as the JSON config's keys, with their ranges and meanings.
  static const OptionList<BatchNormOptions>& option_list();
  static BatchNormOptions from_json(const Json& config);
  Json to_json() const;
};

/// Parameters: weight [C] (ones) and bias [C] (zeros), the learned scale and shift; state
/// (parameters without a gradient, so saved in checkpoints and snapshots with the model but
/// never moved by an optimizer): running_mean [C] (zeros) and running_var [C] (ones).
/// Forward, training mode (Algorithm 1): each column normalised by its mean and biased
/// variance over the N rows it is given, then scaled and shifted; the running averages move
/// towards the batch's, running = (1 - momentum) running + momentum batch, with the unbiased
/// variance (times N / (N - 1), as PyTorch). The rows are the whole graph in full-batch
/// training and a sampled computation graph's nodes in mini-batch training. Evaluation mode
/// (prediction, explanations): x' = (x - running_mean) / sqrt(running_var + eps) weight + bias,
/// each node on its own, so layer-wise and sampled inference give what the whole graph gives.
/// Training-mode forwards update the running averages: they must not run concurrently on one
/// layer.
class BatchNorm : public NodeLayer {
 public:
  explicit BatchNorm(BatchNormOptions options);
  std::string type_name() const override { return "batch_norm"; }
  Json config() const override { return options_.to_json(); }
  /// `graph`, `seed` and `attention` are not used (the layer passes no messages).
  Var forward(const NodeFeatures& x, const GraphContext& graph, uint64_t seed,
              AttentionExport* attention = nullptr) const override;
  int64_t out_features() const override { return options_.in_channels; }
  bool passes_messages() const override { return false; }
  bool normalizes_previous_layer() const override { return true; }

  static void register_into(Registry& registry);

 private:
  BatchNormOptions options_;
  Var weight_, bias_;
  Var running_mean_, running_var_;  // state: requires_grad false
};

}  // namespace attend::graph
