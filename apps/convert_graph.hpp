#pragma once
/// `attend convert --graph PATH | --triples FILE... --to FILE`: a graph dataset in any format
/// that training reads, written as one attend.graph HDF5 file.

#include <cstdint>
#include <string>
#include <vector>

#include "attend/graph/node_attribute_files.hpp"
#include "commands.hpp"

namespace attend::cli {

/// What to convert: a dataset `graph` (anything graph::load_node_dataset reads) or TSV
/// `triples` files (head, relation, tail), exactly one of the two; `to` is the HDF5 file.
struct ConvertGraphArgs {
  std::string graph;
  std::vector<std::string> triples;
  std::string to;
  std::vector<double> split_fractions;  ///< empty, or (train, val): graph::split_at_random
  uint64_t split_seed = 0;
  bool quiet = false;  ///< no progress line while reading or writing large files
  std::string features_layout = "auto";  ///< auto, csr or dense (graph::parse_feature_layout)
  int64_t chunk_rows = 64;               ///< dense layout: rows per chunk
  bool compress_features = false;        ///< dense layout: shuffle + gzip
  graph::NodeAttributeFiles attributes;  ///< labels and features from their own files
};

/// Load the dataset, attach the labels and features of `attributes` (node_attribute_files.hpp),
/// print its loader warnings to `context.err`, split the labelled nodes at
/// random when `split_fractions` is given (replacing any split: LINQS has none), write it with
/// graph::save_node_dataset (atomically) and print one summary line to `context.out`:
/// `wrote FILE: NAME, N nodes, E (un)directed edges, F features, C classes, R relations,
/// split a/b/c` (and `, D edge features` when the edges have them). Bad input (both or neither source, an unreadable dataset, an unwritable
/// destination) throws InputError; no file is left at `to` on failure. Returns 0.
int convert_graph(const ConvertGraphArgs& args, Context& context);

}  // namespace attend::cli
