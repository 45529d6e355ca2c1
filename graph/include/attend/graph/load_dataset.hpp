#pragma once
/// Open a node-classification dataset from a path, recognising its format.

#include <cstdint>
#include <optional>
#include <string>

#include "attend/graph/node_attribute_files.hpp"
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

/// A random split of the labelled nodes made as a dataset is loaded (split_at_random): for the
/// layouts without one (an edge list, LINQS), replacing any split the dataset has.
struct RandomSplit {
  double train_fraction = 0.0, val_fraction = 0.0;  ///< the rest of the labelled nodes is test
  uint64_t seed = 0;
};

/// What a dataset gets on top of its own files: labels and / or features from files of their
/// own (node_attribute_files.hpp; for an edge list, which holds only the graph), then a split.
struct DatasetAdditions {
  NodeAttributeFiles attributes;
  std::optional<RandomSplit> split;
};

/// Attach the files of `additions` to `d` (attach_node_attributes, when it names one) and make
/// its split (when it has one): what `attend convert`, `node-classify train | evaluate |
/// predict` (--labels, --features, --split-fractions, --split-seed) and Python's
/// attend.load_graph do after loading.
void add_to_dataset(NodeDataset& d, const DatasetAdditions& additions);

/// load_node_dataset(path), then add_to_dataset(additions).
NodeDataset load_node_dataset(const std::string& path, const DatasetAdditions& additions);

}  // namespace attend::graph
