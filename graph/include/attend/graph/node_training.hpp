#pragma once
/// Node classification: prepare a dataset, train a NodeClassifier with early stopping,
/// evaluate it, predict, and save or load it as a checkpoint.

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attend/core/checkpoint.hpp"
#include "attend/core/communicator.hpp"
#include "attend/core/progress.hpp"
#include "attend/core/tensor.hpp"
#include "attend/graph/graph_context.hpp"
#include "attend/graph/graph_store.hpp"
#include "attend/graph/minibatch_training.hpp"
#include "attend/graph/node_classifier.hpp"
#include "attend/graph/node_dataset.hpp"
#include "attend/graph/node_features.hpp"
#include "attend/graph/node_inference.hpp"
#include "attend/graph/node_model_spec.hpp"

namespace attend {
class Registry;
}

namespace attend::graph {

/// A dataset ready for training: its graph views and its input features (row-normalised
/// when asked; a sparse identity for featureless nodes), in memory or, out of core, as rows
/// read on demand.
struct PreparedNodeData {
  /// The dataset; its `features` keep their shape [N, F] but no values (they are in
  /// `features` or `feature_rows`, held once).
  NodeDataset dataset;
  GraphContext graph;
  NodeFeatures features;  ///< [N, F]; empty when the features stay in a file
  /// When the features stay in a file: their rows, the input of sampled training and of
  /// layer-wise and sampled inference (a hook over a FeatureRows). Empty: `features`.
  NodeFeatureRows feature_rows;
};
PreparedNodeData prepare_node_data(NodeDataset dataset, bool normalize_features);

/// How the rows read out of core reach a batch.
enum class BatchRows {
  kDense,   ///< a dense [n, F] (gather_node_features): the fastest product for dense features
  /// their non-zeros (gather_sparse_node_features) in the form input_features gives them:
  /// the bits of the in-memory features when the batch is as dense as the whole matrix
  /// (either side of kDenseFeatureShare)
  kInMemoryForm,
};

/// A graph opened without its feature values (load_graph_structure_h5, whose options chose
/// the cache and the normalisation) ready for training or inference out of core: the graph
/// in memory (`structure.graph` when it was read as an index, StructureEdges::kIndex, else
/// built from the dataset's edges), `feature_rows` reading the batches' rows through `structure.features`
/// (serialised by a mutex) in the form `rows` says, `features` empty and `dataset.features`
/// of shape [N, F] without values (the model's input width). train_node_classifier then
/// needs sampled mini-batch training and layer-wise or sampled inference; predict_logits
/// needs layer-wise or sampled inference.
PreparedNodeData prepare_node_data_out_of_core(GraphStructure structure, BatchRows rows = BatchRows::kDense);

struct NodeRunOptions {
  uint64_t seed = 0;
  int epochs = -1;    ///< -1: the spec's
  int patience = -1;  ///< -1: the spec's
  ProgressOptions progress;
  std::string save_path;  ///< write the trained model here (atomically) when not empty
  CheckpointData* checkpoint_out = nullptr;  ///< receives what save_path would hold, when given
  /// Sampled mini-batch training (minibatch_training.hpp) when set; full-batch otherwise.
  std::optional<MiniBatchOptions> minibatch;
  /// How the validation split is scored after every epoch and both splits at the end.
  InferenceOptions inference;
  /// Mini-batch training only: the ranks each batch's shards are spread over (`mpirun`,
  /// shard_reduction.hpp); null: this process alone. Every rank trains the same model (the
  /// same bits as one process with the same `minibatch->shards`, for up to that many ranks);
  /// rank 0 alone shows progress and writes `save_path`.
  const Communicator* communicator = nullptr;
};

/// One epoch of a training run: the training loss of its step (training mode, dropout on)
/// and, after the step, in evaluation mode, the accuracy on the training split and the loss
/// and accuracy on the validation split (NaN without one).
struct NodeEpoch {
  double train_loss = NAN, train_acc = NAN, val_loss = NAN, val_acc = NAN;
};

struct NodeRunResult {
  uint64_t seed = 0;
  double val_acc = NAN;   ///< NaN when the dataset has no validation split
  double test_acc = NAN;  ///< at the kept epoch; NaN when the dataset has no test split
  int epochs = 0;
  int best_epoch = -1;
  double seconds = 0.0;
  /// Mini-batch training: the steps run, and the wall seconds they took (sampling, reading
  /// rows, forward, backward, the gradients' all-gather; not the optimizer step, not the
  /// evaluations that `seconds` includes). 0 for full-batch training.
  int64_t batches = 0;
  double batch_seconds = 0.0;
  std::vector<NodeEpoch> history;  ///< [epochs], one per epoch run
};

/// Train one model (layers built through `registry`) on the training split, stopping early on
/// the validation split (loss and accuracy, the GAT rule) and restoring the best epoch; with
/// no validation split the training split stands in for it in the stopping rule. With no
/// validation split or with early stopping off (patience 0) the last epoch's model is kept
/// (best_epoch = epochs - 1) and the validation split, if any, only scores it. Deterministic
/// for a seed, whatever the thread count. With `options.minibatch` an epoch is a pass over the
/// training nodes in sampled batches, one optimizer step each (fan-outs that are not one per
/// layer are an attend::InputError); the checkpoint records the sampling (model JSON key
/// "training") and is an ordinary model otherwise.
/// One full-batch epoch's gradient, without the optimizer step: `model` in training mode on
/// features `x` (data.features, or the same in another form), its dropout drawn from (seed,
/// epoch) as train_node_classifier draws it, the cross-entropy over the training split
/// backpropagated into `arena`'s gradients (the caller zeroes them), then each layer's
/// `layer_weight_decay` added. Returns the loss.
double full_batch_gradient(NodeClassifier& model, const NodeFeatures& x, const PreparedNodeData& data,
                           ParameterArena& arena, const std::vector<double>& layer_weight_decay, uint64_t seed,
                           int epoch);

NodeRunResult train_node_classifier(const PreparedNodeData& data, const NodeModelSpec& spec,
                                    const Registry& registry, const NodeRunOptions& options);

/// Mean and sample standard deviation (0 for one run) of the runs' accuracies; NaN for a
/// split the dataset does not have.
struct RunStatistics {
  double val_mean = NAN, val_sd = NAN, test_mean = NAN, test_sd = NAN;
};
RunStatistics run_statistics(const std::vector<NodeRunResult>& results);

/// Fraction of `rows` whose arg-max logit is the label.
double accuracy(const Tensor& logits, const std::vector<int64_t>& labels,
                const std::vector<int64_t>& rows);

/// A trained model loaded from a checkpoint written by `train_node_classifier`.
struct LoadedNodeModel {
  std::unique_ptr<NodeClassifier> model;
  bool normalize_features = true;
};
LoadedNodeModel load_node_model(const std::string& checkpoint, const Registry& registry);
/// As load_node_model, from a checkpoint in memory (`source` names it in errors).
LoadedNodeModel node_model_from_checkpoint(const CheckpointData& checkpoint, const Registry& registry,
                                           const std::string& source);

/// Class logits [N, C] in evaluation mode (ops::softmax gives the probabilities), computed as
/// `inference` says (node_inference.hpp; data whose features stay in a file supplies their
/// rows, and then needs layer-wise or sampled inference); `attention`, when given, receives
/// each layer's attention weights (full inference only). Throws attend::InputError when the
/// data does not fit the model (another input width, more relations than it was built for)
/// or the inference options do not.
Tensor predict_logits(NodeClassifier& model, const PreparedNodeData& data,
                      std::vector<AttentionExport>* attention = nullptr, const InferenceOptions& inference = {});

}  // namespace attend::graph
