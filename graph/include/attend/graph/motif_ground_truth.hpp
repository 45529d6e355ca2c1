#pragma once
/// MotifGroundTruth: which edges and nodes of a synthetic benchmark belong to its planted
/// motifs, the ground truth of an explanation, and its two text files:
///   motif_edges.txt  comment lines (`#`), then `source target` per line: every edge of a
///                    planted motif, each undirected edge once
///   motif_nodes.txt  comment lines (`#`), then one integer per node in node order: the id of
///                    the planted motif the node belongs to, -1 for a node of the base graph

#include <cstdint>
#include <string>
#include <vector>

namespace attend::graph {

struct MotifGroundTruth {
  std::vector<int64_t> node_motif;        ///< [N] motif id, -1 outside every motif
  std::vector<int64_t> edge_src, edge_dst;  ///< [M] the motif edges, each undirected edge once

  int64_t num_nodes() const { return static_cast<int64_t>(node_motif.size()); }
  int64_t num_edges() const { return static_cast<int64_t>(edge_src.size()); }
};

/// Write motif_edges.txt and motif_nodes.txt into the existing folder `dir`, each atomically.
void save_motif_ground_truth(const std::string& dir, const MotifGroundTruth& truth);

/// Read them back from `dir` (files optionally .gz) for a graph of `num_nodes` nodes; bad
/// input throws attend::InputError with file and line (a node id outside 0..N-1, a motif id
/// below -1, a count of lines other than N, an edge between nodes of different motifs or
/// outside every motif).
MotifGroundTruth load_motif_ground_truth(const std::string& dir, int64_t num_nodes);

}  // namespace attend::graph
