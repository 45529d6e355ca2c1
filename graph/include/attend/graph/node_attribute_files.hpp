#pragma once
/// Node labels and node features from files of their own, for the formats that hold only the
/// graph (the edge lists of edge_list_file.hpp): `attend convert --labels F --features F`.
/// Nodes are named as the graph names them (NodeDataset::node_name).
/// - Labels: a text file (plain or .gz) of `node label` lines, whitespace-separated, `#`
///   comments. When every label is an integer >= 0 it is the class id (C = the largest + 1; at
///   most 2^24 - 1);
///   otherwise the labels are class names, numbered in sorted order. Nodes not listed stay
///   unlabelled (-1).
/// - Features: a `.npy` array [R, F] whose row r belongs to the node named `r` (NetworkX's
///   integer nodes), every node of the graph needing a row; or a text table of `node v1 ... vF`
///   lines (the same F on every line, every node listed once).
/// A node the graph does not have, a node listed twice, a missing row or a malformed line is
/// an attend::InputError naming the file and the line.

#include <string>

#include "attend/graph/node_dataset.hpp"

namespace attend::graph {

struct NodeAttributeFiles {
  std::string labels;    ///< empty: keep the dataset's labels
  std::string features;  ///< empty: keep the dataset's features
};

/// Replace `d`'s labels and / or features by those of `files` (see above), then validate.
void attach_node_attributes(NodeDataset& d, const NodeAttributeFiles& files);

/// Read the labels file at `path` into `d` (labels, num_classes, class_names).
void attach_node_labels(NodeDataset& d, const std::string& path);

/// Read the features file at `path` (`.npy` or text table) into `d.features` [N, F].
void attach_node_features(NodeDataset& d, const std::string& path);

}  // namespace attend::graph
