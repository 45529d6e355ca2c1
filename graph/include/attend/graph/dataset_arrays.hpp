#pragma once
/// A node dataset from plain arrays, as PyTorch Geometric holds one (edge_index, x, y, masks):
/// what the Python module's attend.Graph builds.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attend/core/sparse_matrix.hpp"
#include "attend/graph/node_dataset.hpp"

namespace attend::graph {

/// Nodes given as ids or as a boolean mask over all nodes (at most one of the two).
struct NodeSelection {
  std::vector<int64_t> ids;
  std::vector<uint8_t> mask;  ///< [N], nonzero: selected
};

struct DatasetArrays {
  std::string name = "arrays";
  std::vector<int64_t> edge_src, edge_dst;  ///< [E]: edge_index rows 0 (sources) and 1 (targets)
  std::vector<int64_t> edge_type;           ///< [E] relation ids, or empty (untyped)
  std::vector<float> edge_features;         ///< [E, edge_feature_dim] row-major (PyG's edge_attr), or empty
  int64_t edge_feature_dim = 0;
  bool directed = false;                    ///< false: each pair means both ways
  std::optional<SparseMatrix> features;     ///< [N, F]; none: featureless nodes
  std::optional<std::vector<int64_t>> labels;  ///< [N] class ids, -1 unlabelled; none: all unlabelled
  NodeSelection train, val, test;
  std::optional<int64_t> num_nodes;    ///< default: the rows of x or y, else 1 + the largest endpoint
  std::optional<int64_t> num_classes;  ///< default: 1 + the largest label
};

/// The dataset the arrays describe; relations are named "0".."R-1" for R = 1 + the largest
/// edge type. Arrays that disagree on N or E, and whatever NodeDataset::validate refuses, are
/// an attend::InputError naming the array (x, y, train, edge_type, edge_attr, ...).
NodeDataset dataset_from_arrays(DatasetArrays arrays);

}  // namespace attend::graph
