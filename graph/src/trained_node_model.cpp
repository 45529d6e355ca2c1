#include "attend/graph/trained_node_model.hpp"

#include <utility>

#include "attend/core/error.hpp"
#include "attend/core/ops/loss.hpp"
#include "attend/graph/graph_store.hpp"
#include "attend/graph/load_dataset.hpp"

namespace attend::graph {

namespace {
/// class_logits with the dataset called `dataset` in errors.
Tensor class_logits_of(NodeClassifier& model, const PreparedNodeData& data, const std::string& source,
                       const std::string& dataset, std::vector<AttentionExport>* attention,
                       const InferenceOptions& inference) {
  Tensor logits;  // [N, C]
  try {
    logits = predict_logits(model, data, attention, inference);
  } catch (const InputError& e) {
    throw InputError(source, 0, std::string(e.what()) + " (" + dataset + ")");
  }
  if (logits.dim(1) != data.dataset.num_classes) {
    throw InputError(source, 0, "the model predicts " + std::to_string(logits.dim(1)) + " classes, the dataset has " +
                                    std::to_string(data.dataset.num_classes) + " (" + dataset + ")");
  }
  return logits;
}
}  // namespace

TrainedNodeModel load_trained_node_model(const std::string& data_path, const std::string& checkpoint,
                                         const Registry& registry, const DatasetAdditions& additions) {
  TrainedNodeModel m;
  m.checkpoint = checkpoint;
  m.data_path = data_path;
  m.loaded = load_node_model(checkpoint, registry);
  m.data = prepare_node_data(load_node_dataset(data_path, additions), m.loaded.normalize_features);
  return m;
}

TrainedNodeModel load_trained_node_model_out_of_core(const std::string& data_path, const std::string& checkpoint,
                                                     const Registry& registry, int64_t cache_bytes) {
  if (!is_hdf5_file(data_path)) {  // an unusable data file is reported before the checkpoint is read
    throw InputError(data_path, 0, "features out of core are read from an HDF5 graph file (attend convert --features-layout dense)");
  }
  TrainedNodeModel m;
  m.checkpoint = checkpoint;
  m.data_path = data_path;
  m.loaded = load_node_model(checkpoint, registry);
  m.data = prepare_node_data_out_of_core(open_graph_out_of_core(data_path, cache_bytes, m.loaded.normalize_features),
                                         BatchRows::kInMemoryForm);
  return m;
}

Tensor class_logits(TrainedNodeModel& m, std::vector<AttentionExport>* attention, const InferenceOptions& inference) {
  return class_logits_of(*m.loaded.model, m.data, m.checkpoint, m.data.dataset.name + " in " + m.data_path, attention,
                         inference);
}

Tensor class_logits(NodeClassifier& model, const PreparedNodeData& data, const std::string& source,
                    std::vector<AttentionExport>* attention, const InferenceOptions& inference) {
  return class_logits_of(model, data, source, data.dataset.name, attention, inference);
}

std::vector<SplitScore> score_splits(const Tensor& logits, const NodeDataset& d) {
  std::vector<SplitScore> out;
  const Var scores(logits);
  for (const auto& [name, rows] : {std::pair<const char*, const std::vector<int64_t>&>{"train", d.train},
                                   {"val", d.val}, {"test", d.test}}) {
    if (rows.empty()) continue;
    out.push_back({name, static_cast<int64_t>(rows.size()), accuracy(logits, d.labels, rows),
                   ops::cross_entropy(scores, d.labels, rows).value().item()});
  }
  return out;
}

}  // namespace attend::graph
