#pragma once
/// A trained node classifier (a checkpoint of `node-classify train --save`) applied to a
/// dataset: what `node-classify evaluate | predict` and `explain` start from.

#include <string>
#include <vector>

#include "attend/core/tensor.hpp"
#include "attend/graph/load_dataset.hpp"
#include "attend/graph/node_training.hpp"

namespace attend {
class Registry;
}

namespace attend::graph {

struct TrainedNodeModel {
  std::string checkpoint;  ///< the file it came from, named in errors
  std::string data_path;   ///< the dataset it is applied to, named in errors
  LoadedNodeModel loaded;
  PreparedNodeData data;   ///< prepared as the model was trained (its feature normalisation)
};

/// Load the model in `checkpoint` (layers built through `registry`) and the dataset at
/// `data_path` with `additions` (load_node_dataset; its warnings
/// stay in data.dataset.warnings).
TrainedNodeModel load_trained_node_model(const std::string& data_path, const std::string& checkpoint,
                                         const Registry& registry, const DatasetAdditions& additions = {});

/// As load_trained_node_model with the node features left in the graph file at `data_path`
/// (an attend.graph .h5 file, else an InputError; load_graph_structure_h5): their rows are
/// read per batch through an LRU cache of `cache_bytes` (0: none), normalised as the model
/// was trained, in the in-memory form (BatchRows::kInMemoryForm). class_logits then needs layer-wise
/// or sampled inference and gives the bits of the same mode with the features in memory.
TrainedNodeModel load_trained_node_model_out_of_core(const std::string& data_path, const std::string& checkpoint,
                                                     const Registry& registry, int64_t cache_bytes);

/// Class logits [N, C] of every node (predict_logits, computed as `inference` says). Data the
/// model does not fit, inference options it does not fit, or a model that predicts another
/// number of classes than the dataset has, is an attend::InputError naming the checkpoint and
/// the dataset (its name and path).
Tensor class_logits(TrainedNodeModel& m, std::vector<AttentionExport>* attention = nullptr,
                    const InferenceOptions& inference = {});
/// As above, for a model from anywhere (`source` names it in errors, the dataset by its name).
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
