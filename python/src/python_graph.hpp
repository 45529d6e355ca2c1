#pragma once
// The object behind attend.Graph: an immutable dataset, shared by the Python objects that use it.

#include <memory>

#include "attend/graph/node_dataset.hpp"

namespace attend::python {

struct PythonGraph {
  std::shared_ptr<const graph::NodeDataset> dataset;
};

}  // namespace attend::python
