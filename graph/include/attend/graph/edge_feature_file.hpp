#pragma once
/// The edge-feature file of the text layouts (`edge_features.txt`, plain or .gz, beside the
/// plain-text Planetoid, RDF and LINQS files): one line per edge, `u v f_1 ... f_D`,
/// whitespace-separated, `#` lines ignored, where u and v are node names as the dataset
/// names its nodes (paper ids, IRIs; node ids where it has no names).

#include <string>

#include "attend/graph/node_dataset.hpp"

namespace attend::graph {

/// The file's name in a dataset folder.
inline constexpr const char* kEdgeFeatureFile = "edge_features.txt";

/// Read `path` and attach its rows to the edges of `dataset` (edge_features, edge_feature_dim):
/// the line `u v ...` gives the features of every edge from u to v (in an undirected dataset,
/// either way round). An unknown node, a pair that is no edge of the dataset, a pair listed
/// twice, a row of another width than the first, or an edge left without a row is an
/// attend::InputError with the file and the line (or the edge).
void read_edge_feature_file(const std::string& path, NodeDataset& dataset);

}  // namespace attend::graph
