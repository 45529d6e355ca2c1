#pragma once
/// Readers for plain edge lists, one edge per line, nodes named by any token:
/// - NetworkX's `write_edgelist` (`.edgelist`, `.edges`): `u v`, `u v {'weight': 0.5, ...}`
///   (data=True) or `u v 0.5 ...` (data=[keys]), whitespace-separated, `#` comments. The
///   attributes become edge features: the dict's keys, sorted, the same on every line, with
///   numeric (or True / False) values; or the numeric columns after `u v`.
/// - CSV with a header row (`.csv`): `source,target[,feature,...]`; the columns after the
///   first two are numeric edge features.
/// Nodes are numbered in order of first appearance and keep their names; the graph is
/// undirected (a NetworkX Graph; a pair listed both ways is one pair), unlabelled, without
/// node features or split: what `attend convert` stores and the Python module adds to.

#include <string>

#include "attend/graph/node_dataset.hpp"

namespace attend::graph {

/// Read the edge list at `path` (plain or .gz) in the layout its extension names (see
/// above). A malformed line is an attend::InputError with the file, the line and what was
/// expected.
NodeDataset load_edge_list(const std::string& path);

/// Whether `path` is named as an edge list: `*.edgelist`, `*.edges` or `*.csv` (optionally `.gz`).
bool is_edge_list_file(const std::string& path);

}  // namespace attend::graph
