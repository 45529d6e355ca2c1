#pragma once
/// Reader for node datasets saved with NumPy under PyTorch Geometric's names: an `.npz`
/// archive (numpy.savez / savez_compressed) or a folder of `.npy` files (numpy.save), holding
///   edge_index  [2, E] integers (required): row 0 sources, row 1 targets
///   x           [N, F] numbers: node features (absent: featureless nodes)
///   y           [N] or [N, 1] integers: class ids, -1 unlabelled (absent: all unlabelled)
///   train_mask, val_mask, test_mask   [N] booleans (or 0/1 integers), or instead
///   train_idx, val_idx, test_idx      [k] integers: the splits' node ids
///   edge_type   [E] integers: relation ids (the graph is then directed, as R-GCN's)
///   edge_attr   [E] or [E, D] numbers: edge features
/// Other arrays are ignored with a warning. Untyped graphs are undirected: a pair listed
/// both ways (PyG's to_undirected) is one pair.

#include <string>

#include "attend/graph/node_dataset.hpp"

namespace attend::graph {

/// Read the `.npz` file or the folder of `.npy` files at `path`. A missing edge_index, an
/// array of another shape or dtype than above, or arrays that disagree (on N, on E) is an
/// attend::InputError naming the file and the array.
NodeDataset load_numpy_dataset(const std::string& path);

/// Whether `path` looks like such a dataset: a file named `*.npz`, or a folder with an
/// `edge_index.npy`.
bool is_numpy_dataset(const std::string& path);

}  // namespace attend::graph
