#pragma once
/// A trained node classifier (a checkpoint of `node-classify train --save`) applied to a
/// dataset: what `node-classify evaluate | predict` and `explain` start from.

#include <string>
#include <vector>

#include "attend/core/tensor.hpp"
#include "attend/graph/node_training.hpp"

namespace attend {
class Registry;
}

namespace attend::graph {

struct TrainedNodeModel {
  std::string checkpoint;  ///< the file it came from, named in errors
  LoadedNodeModel loaded;
  PreparedNodeData data;   ///< prepared as the model was trained (its feature normalisation)
};

/// Load the model in `checkpoint` (layers built through `registry`) and the dataset at
/// `data_path` (load_node_dataset; its warnings stay in data.dataset.warnings).
TrainedNodeModel load_trained_node_model(const std::string& data_path, const std::string& checkpoint,
                                         const Registry& registry);

/// Class logits [N, C] of every node (predict_logits, computed as `inference` says). Data the
/// model does not fit, inference options it does not fit, or a model that predicts another
/// number of classes than the dataset has, is an attend::InputError naming the checkpoint and
/// the dataset.
Tensor class_logits(TrainedNodeModel& m, std::vector<AttentionExport>* attention = nullptr,
                    const InferenceOptions& inference = {});
/// As above, for a model from anywhere (`source` names it in errors).
Tensor class_logits(NodeClassifier& model, const PreparedNodeData& data, const std::string& source,
                    std::vector<AttentionExport>* attention = nullptr, const InferenceOptions& inference = {});

/// Accuracy and mean cross-entropy (the loss the trainer reports) on one split.
struct SplitScore {
  std::string split;  ///< train, val or test
  int64_t nodes = 0;
  double accuracy = 0.0;
  double loss = 0.0;
};

/// A SplitScore for each split of `dataset` that has nodes, in the order train, val, test.
std::vector<SplitScore> score_splits(const Tensor& logits, const NodeDataset& dataset);

}  // namespace attend::graph
