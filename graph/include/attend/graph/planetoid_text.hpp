#pragma once
/// Reader for the plain-text node-classification layout (one folder, files optionally .gz):
///   features.coo.txt  header `# N F nnz`, then `node feature value` per line
///   labels.txt        one class id per line, node order (-1: unlabelled)
///   edges.txt         header `# N E`, then `u v` per line (undirected, each pair once)
///   split_train.txt, split_val.txt, split_test.txt   one node id per line
/// This is how attend ships the Planetoid splits of Cora, CiteSeer and PubMed.

#include <string>
#include <vector>

#include "attend/graph/node_dataset.hpp"

namespace attend::graph {

/// Read the folder `dir`; malformed input throws attend::InputError with file and line.
NodeDataset load_planetoid_text(const std::string& dir);

/// Write `dataset` into the existing folder `dir` in this layout, each file atomically; the
/// reader gives it back (values printed with 9 significant digits, exact for float32).
/// Returns the paths written. Throws attend::Error for a directed or typed dataset, which
/// the layout cannot hold.
std::vector<std::string> save_planetoid_text(const std::string& dir, const NodeDataset& dataset);

}  // namespace attend::graph
