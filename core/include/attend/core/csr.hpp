#pragma once
/// Csr: a directed graph in destination-major compressed sparse row form, with its transpose.
///
/// Row `i` lists the in-edges of node `i` (its sources) at positions
/// `indptr[i] .. indptr[i + 1]` of `src` and `edge_id`; `edge_id[p]` is the index of that edge
/// in the caller's original edge list, so per-edge data (edge features, exported attention
/// weights) is keyed by edge id. The transpose (source-major) is built once at construction:
/// row `j` of it lists the out-edges of node `j` as (destination, position in the
/// destination-major arrays), in increasing position order. Kernels run forward passes over
/// the destination rows and backward passes over the transpose, both without atomics.
///
/// The arrays are immutable and shared: copying a Csr is cheap, and an op that records a
/// backward pass keeps the graph alive by holding a copy.
///
/// A Csr may carry an edge scale: a Var [E] by edge id that message-passing kernels
/// (ops::sparse_attention) multiply into each edge's message. It is how an explanation's
/// soft edge mask reaches every layer that passes the graph's Csr to a kernel.

#include <cstdint>
#include <memory>
#include <vector>

#include "attend/core/autodiff.hpp"

namespace attend {

class Csr {
 public:
  /// A graph with no nodes and no edges.
  Csr();
  /// Adopt destination-major arrays: `indptr` [n_nodes + 1] non-decreasing from 0 to E,
  /// `src` [E] with values in [0, n_nodes), `edge_id` [E] a permutation of 0..E-1.
  /// Throws attend::Error naming the first violated rule. Builds the transpose.
  Csr(int64_t n_nodes, std::vector<int64_t> indptr, std::vector<int64_t> src,
      std::vector<int64_t> edge_id);

  /// Build from an edge list: edge `e` goes from `src[e]` to `dst[e]`. Stable: within a row
  /// the edges keep their input order. Duplicate edges and self-loops are kept as given;
  /// nodes without in-edges get empty rows. Throws attend::Error on mismatched lengths or a
  /// node outside [0, n_nodes). Counting sort, O(N + E).
  static Csr from_edges(int64_t n_nodes, const std::vector<int64_t>& src,
                        const std::vector<int64_t>& dst);

  /// Number of nodes N.
  int64_t n_nodes() const { return data_->n_nodes; }
  /// Number of edges E.
  int64_t n_edges() const { return static_cast<int64_t>(data_->src.size()); }
  /// Number of in-edges of `node`.
  int64_t in_degree(int64_t node) const { return indptr()[node + 1] - indptr()[node]; }

  /// Destination-major row pointers [N + 1].
  const std::vector<int64_t>& indptr() const { return data_->indptr; }
  /// Source node of the edge at each destination-major position [E].
  const std::vector<int64_t>& src() const { return data_->src; }
  /// Original edge-list index of the edge at each destination-major position [E].
  const std::vector<int64_t>& edge_id() const { return data_->edge_id; }

  /// Transpose (source-major) row pointers [N + 1]: out-edges of `j` are at
  /// `out_indptr[j] .. out_indptr[j + 1]` of `out_dst` and `out_pos`.
  const std::vector<int64_t>& out_indptr() const { return data_->out_indptr; }
  /// Destination node of each out-edge [E].
  const std::vector<int64_t>& out_dst() const { return data_->out_dst; }
  /// Destination-major position of each out-edge [E] (increasing within a source row).
  const std::vector<int64_t>& out_pos() const { return data_->out_pos; }

  /// A copy (sharing the arrays) whose messages are scaled by `scale` [E] by edge id (float,
  /// may require a gradient); an undefined Var gives a copy without a scale. Throws
  /// attend::Error on another shape.
  Csr with_edge_scale(Var scale) const;
  /// The edge scale [E] by edge id; undefined when the graph has none.
  const Var& edge_scale() const { return edge_scale_; }

 private:
  struct Data {
    int64_t n_nodes = 0;
    std::vector<int64_t> indptr, src, edge_id;
    std::vector<int64_t> out_indptr, out_dst, out_pos;
  };
  std::shared_ptr<const Data> data_;
  Var edge_scale_;  ///< [E] by edge id, or undefined
};

}  // namespace attend
