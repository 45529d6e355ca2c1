#pragma once
/// The two TSV tables of `attend explain node`, with node names as the dataset gives them
/// (the names `node-classify predict` writes):
///   PREFIX.edges.tsv     node<TAB>source<TAB>target<TAB>score: one row per explained node and
///                        explained edge of its computation graph (each direction of an
///                        undirected edge is a row); header only when the method scores no edges
///   PREFIX.features.tsv  node<TAB>feature<TAB>score: one row per explained node and input
///                        feature (0-based column), the attribution summed over the nodes of
///                        its computation graph; header only when the method scores no features
/// Both written atomically (part of an open OutputTransaction).

#include <string>

#include "attend/graph/explain/explanation_file.hpp"
#include "attend/graph/node_dataset.hpp"

namespace attend::graph {

void save_edge_table(const std::string& path, const ExplanationSet& set, const NodeDataset& dataset);
void save_feature_table(const std::string& path, const ExplanationSet& set, const NodeDataset& dataset);

}  // namespace attend::graph
