#include "attend/graph/dataset_arrays.hpp"

#include <algorithm>
#include <utility>

#include "attend/core/error.hpp"

namespace attend::graph {

namespace {

std::vector<int64_t> selected(NodeSelection s, int64_t n, const std::string& name) {
  if (!s.ids.empty() && !s.mask.empty()) throw InputError(name + ": give node ids or a mask, not both");
  if (s.mask.empty()) return std::move(s.ids);
  if (static_cast<int64_t>(s.mask.size()) != n) {
    throw InputError(name + " as a mask must have one entry per node (" + std::to_string(n) + ")");
  }
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < n; ++i)
    if (s.mask[static_cast<std::size_t>(i)] != 0) ids.push_back(i);
  return ids;
}

}  // namespace

NodeDataset dataset_from_arrays(DatasetArrays a) {
  const int64_t e = static_cast<int64_t>(a.edge_src.size());
  if (static_cast<int64_t>(a.edge_dst.size()) != e) throw InputError("edge_index: as many targets as sources");
  int64_t n = 0;
  for (int64_t i = 0; i < e; ++i) n = std::max({n, a.edge_src[i] + 1, a.edge_dst[i] + 1});
  if (a.features) n = a.features->rows();
  if (a.labels) n = static_cast<int64_t>(a.labels->size());
  NodeDataset d;
  d.name = std::move(a.name);
  d.num_nodes = a.num_nodes.value_or(n);
  if (a.features) {
    if (a.features->rows() != d.num_nodes) {
      throw InputError("x has " + std::to_string(a.features->rows()) + " rows, the graph has " +
                       std::to_string(d.num_nodes) + " nodes");
    }
    d.features = std::move(*a.features);
  }
  d.labels = a.labels ? std::move(*a.labels) : std::vector<int64_t>(static_cast<std::size_t>(d.num_nodes), -1);
  if (static_cast<int64_t>(d.labels.size()) != d.num_nodes) throw InputError("y must have one label per node");
  int64_t classes = 0;
  for (int64_t label : d.labels) classes = std::max(classes, label + 1);
  d.num_classes = a.num_classes.value_or(classes);
  d.train = selected(std::move(a.train), d.num_nodes, "train");
  d.val = selected(std::move(a.val), d.num_nodes, "val");
  d.test = selected(std::move(a.test), d.num_nodes, "test");
  d.edge_src = std::move(a.edge_src);
  d.edge_dst = std::move(a.edge_dst);
  d.directed = a.directed;
  if (!a.edge_type.empty()) {
    if (static_cast<int64_t>(a.edge_type.size()) != e) throw InputError("edge_type must have one entry per edge");
    int64_t relations = 0;
    for (int64_t t : a.edge_type) relations = std::max(relations, t + 1);
    for (int64_t r = 0; r < relations; ++r) d.relation_names.push_back(std::to_string(r));
    d.edge_type = std::move(a.edge_type);
  }
  if (a.edge_feature_dim > 0 || !a.edge_features.empty()) {
    if (a.edge_feature_dim < 1 || static_cast<int64_t>(a.edge_features.size()) != e * a.edge_feature_dim) {
      throw InputError("edge_attr must have one row per edge (" + std::to_string(e) + " rows), got " +
                       std::to_string(a.edge_features.size()) + " values of width " + std::to_string(a.edge_feature_dim));
    }
    d.edge_features = std::move(a.edge_features);
    d.edge_feature_dim = a.edge_feature_dim;
  }
  d.validate();
  return d;
}

}  // namespace attend::graph
