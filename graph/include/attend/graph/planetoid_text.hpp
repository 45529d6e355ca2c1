#pragma once
/// Reader for the plain-text node-classification layout (one folder, files optionally .gz):
///   features.coo.txt  header `# N F nnz`, then `node feature value` per line
///   labels.txt        one class id per line, node order (-1: unlabelled)
///   edges.txt         header `# N E`, then `u v` per line (undirected, each pair once)
///   split_train.txt, split_val.txt, split_test.txt   one node id per line
/// This is how attend ships the Planetoid splits of Cora, CiteSeer and PubMed.

#include <string>

#include "attend/graph/node_dataset.hpp"

namespace attend::graph {

/// Read the folder `dir`; malformed input throws attend::InputError with file and line.
NodeDataset load_planetoid_text(const std::string& dir);

}  // namespace attend::graph
