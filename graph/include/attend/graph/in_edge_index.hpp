#pragma once
/// InEdgeIndex: the in-edges of every node of a graph's message-passing edges (the `plain`
/// view of graph_context.hpp) in the least memory that serves neighbour sampling and rebuilds
/// the full views exactly.
///
/// Destination-major: node i's in-edges sit at positions indptr[i] .. indptr[i + 1], each with
/// its source node, its edge id and its relation. Within a row, positions follow edge ids
/// (increasing), as in Csr::from_edges. Ids are CompactIds (4 bytes while N and E are below
/// 2^31). The edge ids are not stored when they equal the positions (the undirected graphs of
/// from_dataset_edges, most sampled graphs), nor the relations when all are 0 (untyped graphs),
/// nor the per-node self-loop counts when there are none. An undirected graph thus costs 4
/// bytes per directed edge and 8 per node; a typed, directed one 12 per directed edge.
///
/// Built straight from a dataset's edge list read block by block (from_dataset_edges), so a
/// graph file's edges never have to be held as int64 arrays (graph_store.hpp reads them so).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "attend/graph/compact_ids.hpp"

namespace attend::graph {

/// One block of a dataset's edges, in edge order: edge k of the block goes from src[k] to
/// dst[k] with relation type[k] (type empty: untyped, relation 0).
struct DatasetEdgeBlock {
  std::span<const int64_t> src, dst, type;
};
/// Calls `visit` on every block of a dataset's edges, in order from the first edge. Called
/// twice by from_dataset_edges (a counting pass and a filling pass), so it must give the same
/// edges each time.
using DatasetEdgeBlocks = std::function<void(const std::function<void(const DatasetEdgeBlock&)>& visit)>;

class InEdgeIndex {
 public:
  /// No nodes and no edges.
  InEdgeIndex();

  /// Edge e goes from src[e] to dst[e] with relation[e] >= 0. Stable counting sort by
  /// destination, O(N + E). Throws attend::Error on arrays of different lengths, a node outside
  /// [0, num_nodes) or a negative relation.
  static InEdgeIndex from_edges(int64_t num_nodes, const std::vector<int64_t>& src, const std::vector<int64_t>& dst,
                                const std::vector<int64_t>& relation);

  /// A dataset's message-passing edges as GraphContext::from_dataset numbers them:
  /// - undirected (`directed` false): both directions of every listed pair, duplicates
  ///   removed, in (destination, source) order, the edge ids being the positions
  ///   (graph::symmetrize); types are checked but not kept;
  /// - directed: dataset edge k gives edge 2k (src -> dst, relation type) and its inverse
  ///   2k + 1 (dst -> src, relation type + `relations`), as in R-GCN.
  /// Reads the blocks twice; holds the index, an [N] array and, undirected, the duplicates
  /// until they are dropped. Throws attend::InputError naming the edge for a node outside
  /// [0, num_nodes) or a type outside [0, relations) (the caller names the file).
  static InEdgeIndex from_dataset_edges(int64_t num_nodes, bool directed, int64_t relations,
                                        const DatasetEdgeBlocks& blocks);

  int64_t num_nodes() const { return static_cast<int64_t>(indptr_.size()) - 1; }
  int64_t num_edges() const { return indptr_.back(); }
  /// Row pointers [N + 1].
  const std::vector<int64_t>& indptr() const { return indptr_; }
  int64_t in_degree(int64_t node) const { return indptr_[node + 1] - indptr_[node]; }
  /// The source of the edge at `position`.
  int64_t source(int64_t position) const { return source_[static_cast<std::size_t>(position)]; }
  /// The edge id of the edge at `position`.
  int64_t edge_id(int64_t position) const {
    return edge_id_.empty() ? position : edge_id_[static_cast<std::size_t>(position)];
  }
  /// The relation of the edge at `position`.
  int64_t relation(int64_t position) const {
    return relation_.empty() ? 0 : relation_[static_cast<std::size_t>(position)];
  }
  /// The self-loops (in-edges from itself) of `node`.
  int64_t self_loops(int64_t node) const {
    return self_loops_.empty() ? 0 : self_loops_[static_cast<std::size_t>(node)];
  }
  /// Bytes held by the arrays.
  std::size_t bytes() const;

 private:
  /// Fill in what follows from the rows: drop identity edge ids and all-zero relations,
  /// count the self-loops.
  void finish();

  std::vector<int64_t> indptr_;  ///< [N + 1]
  CompactIds source_;            ///< [E] by position
  CompactIds edge_id_;           ///< [E] by position; empty: the positions
  CompactIds relation_;          ///< [E] by position; empty: all 0
  CompactIds self_loops_;        ///< [N]; empty: none
};

}  // namespace attend::graph
