#pragma once
/// The HDF5 graph file (schema "attend.graph", version 1): a NodeDataset in one file, written
/// by `attend convert --graph` and read by training like any source format. The layout (CSR
/// features, labels, splits, edges with relation types, names, loader warnings) is described
/// in docs/hdf5-schema.md, section "Graph".

#include <string>

#include "attend/graph/node_dataset.hpp"

namespace attend::graph {

/// The `schema` attribute of a graph file and the newest `schema_version` this build knows.
inline constexpr const char* kGraphSchema = "attend.graph";
inline constexpr int64_t kGraphSchemaVersion = 1;

/// Write `dataset` to `path` as an attend.graph file, atomically (a temporary file renamed
/// into place, so a failure leaves any previous file untouched). Every field of NodeDataset is
/// stored so that `load_node_dataset_h5` gives it back exactly. The dataset must be valid
/// (`NodeDataset::validate`); an unwritable destination is an InputError. Serial.
void save_node_dataset(const std::string& path, const NodeDataset& dataset);

/// Read an attend.graph file written by `save_node_dataset`. A file that is not HDF5, has
/// another schema or a newer version, lacks a dataset, or whose contents are inconsistent
/// (sizes, id ranges, an unsorted CSR) is an InputError naming the file and the problem.
NodeDataset load_node_dataset_h5(const std::string& path);

/// True when `path` is a regular file that starts with the HDF5 signature (the 8 bytes
/// "\x89HDF\r\n\x1a\n" at offset 0, where every file HDF5 writes without a user block has it).
bool is_hdf5_file(const std::string& path);

}  // namespace attend::graph
