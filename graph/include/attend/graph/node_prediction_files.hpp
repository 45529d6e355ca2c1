#pragma once
/// The files `node-classify predict` writes: the predictions TSV and the attention weights
/// (HDF5, schema `attend.attention`, docs/hdf5-schema.md). Each is written atomically; run
/// them inside an OutputTransaction to have both or neither.

#include <string>
#include <vector>

#include "attend/core/tensor.hpp"
#include "attend/graph/node_layer.hpp"
#include "attend/graph/node_training.hpp"

namespace attend::graph {

/// One line per node: `node<TAB>label<TAB>probability` of its most probable class, with the
/// dataset's node and class names. probabilities [N, C].
void write_node_predictions(const std::string& path, const NodeDataset& dataset, const Tensor& probabilities);

/// Per layer that attends: /layers/<i>/{weights [E, H], src, dst, relation [E]} (edge ids of
/// the view it attended over), and /nodes, the dataset's node names.
void write_attention_weights(const std::string& path, const PreparedNodeData& data,
                             const std::vector<AttentionExport>& attention);

}  // namespace attend::graph
