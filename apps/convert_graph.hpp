#pragma once
/// `attend convert --graph PATH | --triples FILE... --to FILE`: a graph dataset in any format
/// that training reads, written as one attend.graph HDF5 file.

#include <cstdint>
#include <string>
#include <vector>

#include "commands.hpp"
#include "node_data_options.hpp"

namespace attend::cli {

/// What to convert: a dataset `graph` (anything graph::load_node_dataset reads) or TSV
/// `triples` files (head, relation, tail), exactly one of the two; `to` is the HDF5 file.
struct ConvertGraphArgs {
  std::string graph;
  std::vector<std::string> triples;
  std::string to;
  bool quiet = false;  ///< no progress line while reading or writing large files
  std::string features_layout = "auto";  ///< auto, csr or dense (graph::parse_feature_layout)
  int64_t chunk_rows = 64;               ///< dense layout: rows per chunk
  bool compress_features = false;        ///< dense layout: shuffle + gzip
  NodeDataArgs data;                     ///< labels and features from their own files, a random split
};

/// Load the dataset, add the labels, features and split of `data` (graph::add_to_dataset;
/// LINQS and edge lists have no split of their own), print its loader warnings to
/// `context.err`, write it with
/// graph::save_node_dataset (atomically) and print one summary line to `context.out`:
/// `wrote FILE: NAME, N nodes, E (un)directed edges, F features, C classes, R relations,
/// split a/b/c` (and `, D edge features` when the edges have them). Bad input (both or neither source, an unreadable dataset, an unwritable
/// destination) throws InputError; no file is left at `to` on failure. Returns 0.
int convert_graph(const ConvertGraphArgs& args, Context& context);

}  // namespace attend::cli
