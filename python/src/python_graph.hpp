#pragma once
// The object behind attend.Graph: an immutable dataset, shared by the Python objects that use
// it, and the graph prepared for a model from it (views, normalised or raw features), kept so
// that predict, evaluate and attention on the same Graph prepare it once.

#include <memory>
#include <mutex>

#include "attend/graph/node_dataset.hpp"
#include "attend/graph/node_training.hpp"

namespace attend::python {

struct PythonGraph {
  std::shared_ptr<const graph::NodeDataset> dataset;

  /// graph::prepare_node_data of the dataset, with row-normalised features or not: made on
  /// the first call for each and kept (the same bits as preparing it again). Thread-safe.
  std::shared_ptr<const graph::PreparedNodeData> prepared(bool normalize_features) const;

  struct PreparedCache {
    std::mutex mutex;
    std::shared_ptr<const graph::PreparedNodeData> normalized, raw;
  };
  std::shared_ptr<PreparedCache> cache = std::make_shared<PreparedCache>();
};

}  // namespace attend::python
