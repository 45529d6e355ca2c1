#pragma once
/// Reader for the Open Graph Benchmark's node-property-prediction folder (Hu et al. 2020, as
/// `ogb.nodeproppred` downloads and unpacks it, e.g. `ogbn_arxiv/`), every file gzip CSV
/// without a header:
///   raw/edge.csv.gz            `u,v` per edge (0-based node ids)
///   raw/num-node-list.csv.gz   N (one graph)      raw/num-edge-list.csv.gz   E
///   raw/node-feat.csv.gz       F comma-separated numbers per node (optional)
///   raw/node-label.csv.gz      one class id per node (`nan`: unlabelled)
///   raw/edge-feat.csv.gz       D numbers per edge (optional; ogbn-proteins has 8)
///   split/<scheme>/{train,valid,test}.csv.gz   one node id per line
/// The graph is read as undirected, as OGB's examples use it (ogbn-arxiv's citations are
/// made undirected there). Heterogeneous datasets (ogbn-mag: raw/relations/) and multi-label
/// ones (ogbn-proteins' 112 tasks) are refused.

#include <string>

#include "attend/graph/node_dataset.hpp"

namespace attend::graph {

/// Read the folder `dir`. `scheme` chooses the folder under split/; empty: the only one there
/// (several are an InputError naming them). Malformed input throws attend::InputError with
/// the file, the line and what was expected.
NodeDataset load_ogb_node_folder(const std::string& dir, const std::string& scheme = "");

/// Whether `dir` is laid out as above (it has raw/edge.csv.gz and a split/ folder).
bool is_ogb_node_folder(const std::string& dir);

}  // namespace attend::graph
