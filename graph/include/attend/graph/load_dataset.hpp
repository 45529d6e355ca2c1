#pragma once
/// Open a node-classification dataset from a path, recognising its format.

#include <string>

#include "attend/graph/node_dataset.hpp"

namespace attend::graph {

/// `path` may be an attend.graph HDF5 file (a `.h5` / `.hdf5` name or the HDF5 signature;
/// see graph_store.hpp), a folder in the plain-text layout (features.coo.txt, labels.txt, edges.txt,
/// split_*.txt; see planetoid_text.hpp), a folder with one N-Triples file and the R-GCN
/// trainingSet.tsv / testSet.tsv, or a folder with LINQS `*.content` and `*.cites`.
/// For the R-GCN benchmark folders `aifb` and `mutag` the target relations are removed
/// from the graph as that benchmark does (AIFB: affiliation and employs; MUTAG: isMutagenic).
/// Anything else is an InputError that says which layouts are understood.
NodeDataset load_node_dataset(const std::string& path);

}  // namespace attend::graph
