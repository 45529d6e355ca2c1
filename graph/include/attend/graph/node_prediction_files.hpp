#pragma once
/// The files `node-classify predict` writes: the predictions table and the attention weights
/// (a table, or HDF5 with schema `attend.attention`, docs/hdf5-schema.md). Tables are CSV for
/// a `.csv` name and TSV otherwise, with a header row and fields quoted as RFC 4180 does
/// where they hold the separator, a quote or a line break, so that pandas.read_csv (with
/// sep="\t" for TSV) reads them as they are. Each file is written atomically; run them inside
/// an OutputTransaction to have both or neither.

#include <string>
#include <vector>

#include "attend/core/tensor.hpp"
#include "attend/graph/node_layer.hpp"
#include "attend/graph/node_training.hpp"

namespace attend::graph {

/// Header `node, label, probability`, then one row per node: its name, the dataset's name of
/// its most probable class and that probability. probabilities [N, C].
void write_node_predictions(const std::string& path, const NodeDataset& dataset, const Tensor& probabilities);

/// `.tsv` / `.csv`: header `layer, head, source, target, relation, weight`, one row per layer
/// that attends, edge of the view it attended over (self-loops included) and head, nodes by
/// name, relation by id. Any other name: HDF5, per such layer /layers/<i>/{weights [E, H],
/// src, dst, relation [E]} and /nodes, the dataset's node names.
void write_attention_weights(const std::string& path, const PreparedNodeData& data,
                             const std::vector<AttentionExport>& attention);

/// Whether `path` names a table (`.tsv` or `.csv`) rather than an HDF5 file.
bool is_table_path(const std::string& path);

}  // namespace attend::graph
