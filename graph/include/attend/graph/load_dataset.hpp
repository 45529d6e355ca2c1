#pragma once
/// Open a node-classification dataset from a path, recognising its format.

#include <string>

#include "attend/graph/node_dataset.hpp"

namespace attend::graph {

/// `path` may be an attend.graph HDF5 file (a `.h5` / `.hdf5` name or the HDF5 signature;
/// see graph_store.hpp), a NumPy `.npz` archive or folder of `.npy` files (numpy_dataset.hpp),
/// an edge list `.edgelist` / `.edges` / `.csv` (edge_list_file.hpp), OGB's node-property
/// folder (ogb_node_folder.hpp), or a folder in a text layout: the plain-text one
/// (features.coo.txt, labels.txt, edges.txt, split_*.txt; see planetoid_text.hpp), one
/// N-Triples file and the R-GCN trainingSet.tsv / testSet.tsv, or LINQS `*.content` and
/// `*.cites` (with split_*.txt of paper ids when present, see linqs.hpp). A text layout's
/// folder may hold `edge_features.txt` (edge_feature_file.hpp).
/// For the R-GCN benchmark folders `aifb` and `mutag` the target relations are removed
/// from the graph as that benchmark does (AIFB: affiliation and employs; MUTAG: isMutagenic).
/// Anything else is an InputError that says which layouts are understood.
NodeDataset load_node_dataset(const std::string& path);

}  // namespace attend::graph
