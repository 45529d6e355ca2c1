#pragma once
/// GraphContext: the graph a stack of node layers runs on, prepared once per dataset.
///
/// It holds the graph's message-passing edges as an InEdgeIndex (in_edge_index.hpp: compact,
/// what neighbour sampling reads) and, built from it on first use, two views of the graph,
/// each a destination-major Csr (with its cached transpose) plus, per edge id, the edge's
/// source, destination and relation: `plain` (the message-passing edges) and `looped` (the
/// same without existing self-loops, plus one self-loop per node, as PyTorch Geometric's
/// add_self_loops). Kernels see only the views' arrays. A graph that is only sampled from
/// (mini-batch training, layer-wise and sampled inference) never builds its views: it costs
/// the index, about 4 bytes per directed edge instead of about 125 with both views (see
/// docs/performance.md, "The graph structure in memory").
///
/// A context may carry a soft edge mask (with_edge_mask): a Var [E] over the edges of
/// `plain`. It travels in the views' Csrs (Csr::edge_scale, honoured by
/// ops::sparse_attention) and in the propagation matrices `adjacency` and `relational_index`
/// hand out (SparseMatrix::with_differentiable_values, honoured by ops::sparse_matmul), so
/// every layer that reaches its edges through these is masked without code of its own.

#include <cstdint>
#include <memory>
#include <vector>

#include "attend/core/csr.hpp"
#include "attend/core/ops/slot_matmul.hpp"
#include "attend/core/sparse_matrix.hpp"
#include "attend/core/tensor.hpp"
#include "attend/graph/in_edge_index.hpp"
#include "attend/graph/node_dataset.hpp"

namespace attend::graph {

/// One view: the Csr and, per edge id, where the edge comes from and goes to.
struct GraphView {
  Csr csr;
  std::vector<int64_t> src, dst;   ///< [E] endpoints by edge id
  std::vector<int64_t> relation;   ///< [E] relation id by edge id (0 for untyped graphs)
  /// Besides the arrays, csr.edge_scale() holds the context's edge mask for this view [E] by
  /// edge id (undefined without a mask).
  Tensor edge_features;            ///< [E, D] by edge id; empty (rank 0) when the graph has none
  bool has_edge_features() const { return edge_features.rank() == 2; }
  int64_t num_edges() const { return static_cast<int64_t>(src.size()); }
};

/// A view's edges over (node, relation) slots. Without `for_attention` (R-GCN): the slots
/// are the edges' (source, relation) pairs and `mean` aggregates them. With it (RGAT): the
/// slots also hold every (destination, relation) pair and at least one slot per node (so
/// S >= N), and `csr` runs each edge from its source slot to its destination node.
struct RelationalIndex {
  std::shared_ptr<const ops::RelationSlots> slots;
  std::vector<int64_t> src_slot;  ///< [E] slot of (src, relation) by edge id
  std::vector<int64_t> dst_slot;  ///< [E] slot of (dst, relation) by edge id (for_attention)
  /// [N, S] (not for_attention): entry (i, slot of (j, r)) = (edges j -> i of relation r) /
  /// (in-edges of i of relation r), so mean x = sum over r of the mean over N_i^r.
  std::shared_ptr<const SparseMatrix> mean;
  std::vector<float> mean_weight;   ///< [E] (not for_attention) the weight of edge e in `mean`
  std::vector<int64_t> mean_entry;  ///< [E] (not for_attention) the stored entry of edge e in `mean`
  Csr csr;  ///< (for_attention) S rows: edge e from row src_slot[e] to row dst[e], ids kept
  /// (for_attention) S rows: edge e from row src_slot[e] to row dst_slot[e], ids kept, so a
  /// softmax over a row's in-edges runs over one relation's neighbours (within-relation).
  Csr within_csr;
  /// (for_attention) [N, S]: entry (node of s, s) = 1 for every slot s, so slot_sum y sums
  /// the per-(node, relation) rows of y into their node.
  std::shared_ptr<const SparseMatrix> slot_sum;
};

class GraphContext {
 public:
  /// Undirected datasets get both directions of every pair (duplicates removed). Typed,
  /// directed datasets keep subject -> object edges with relation r and, as in R-GCN, gain
  /// the inverse edge with relation r + R. Self-loops of `looped` get relation
  /// `num_relations() - 1` (the last relation is "self"). The dataset's edge features, if
  /// any, are attached (set_edge_features): a directed edge and its inverse share the row of
  /// their dataset edge; an undirected pair takes, both ways, that of the first dataset edge
  /// listing it.
  static GraphContext from_dataset(const NodeDataset& dataset);

  /// A context whose `plain` view is exactly the given edges (edge e: src[e] -> dst[e] with
  /// relation[e] < num_relations - 1; the last relation is "self") and whose `looped` view
  /// follows from it by the rule above. from_dataset ends here; a sampled computation graph
  /// (neighbor_sampler.hpp) starts here.
  static GraphContext from_edges(int64_t num_nodes, int64_t num_relations, std::vector<int64_t> src,
                                 std::vector<int64_t> dst, std::vector<int64_t> relation);

  /// A context whose `plain` view is the edges of `in_edges` (by their edge ids), with
  /// `num_relations` relations, the last one "self" (from_edges builds the index from edge
  /// arrays; graph_store.hpp reads one straight from a graph file).
  static GraphContext from_in_edges(int64_t num_relations, InEdgeIndex in_edges);

  /// The in-degrees (per node, of the plain and of the looped view) that `adjacency` with
  /// `normalize` uses in place of this graph's own: a sampled graph carries those of the
  /// whole graph, so GCN weighs each edge it keeps as the whole graph does. Must come before
  /// the first `adjacency` call.
  void set_normalization_degrees(std::vector<int64_t> plain, std::vector<int64_t> looped);
  /// The in-degree of `node` that `adjacency` normalises with: the one set above, else the
  /// view's own (of the looped view with `self_loops`).
  int64_t normalization_degree(int64_t node, bool self_loops) const;

  int64_t num_nodes() const { return num_nodes_; }
  /// Relations in the views, the self-loop relation included.
  int64_t num_relations() const { return num_relations_; }
  /// The message-passing edges, compact (what neighbour sampling reads).
  const InEdgeIndex& in_edges() const { return *in_edges_; }
  /// The views, each built on first use (safe from several threads) and shared by copies.
  const GraphView& plain() const;
  const GraphView& looped() const;
  const GraphView& view(bool self_loops) const { return self_loops ? looped() : plain(); }
  /// The edge features [E, D] by edge id of `plain`; empty (rank 0) when the graph has none.
  const Tensor& edge_features() const { return edge_features_; }

  /// A copy of this context whose message-passing layers multiply each edge's message by
  /// mask[e] (e = edge id of plain(); [E] float Var, may require grad). Self-loops that
  /// `looped` adds get 1, as PyTorch Geometric's explain mode does. The masked views are
  /// built on first use (a layer that reaches its edges through `adjacency` or
  /// `relational_index` never builds them).
  ///
  /// The mask scales the message after any attention softmax, which it leaves unchanged
  /// (out_i = sum_j alpha_ij m_ij v_j), and after any fixed normalisation, whose degrees it
  /// leaves unchanged (gcn: sum_j m_ij h_j / sqrt(d_i d_j); rgcn: the per-relation mean
  /// divides by the unmasked count): PyTorch Geometric's MessagePassing.explain_message
  /// multiplies the message a layer returns. A plain edge that is a self-loop is dropped by
  /// `looped`, and its mask entry with it. Replaces any mask this context has; the copy
  /// shares the cached derived graphs. Throws attend::Error on another shape.
  GraphContext with_edge_mask(Var mask) const;
  /// Whether this context carries an edge mask.
  bool has_edge_mask() const { return masked_ != nullptr; }

  /// `copies` disjoint copies of this graph (which has no edge mask): node k N + v and plain
  /// edge k E + e are copy k's node v and edge e, with its relation, edge features and
  /// normalisation degrees. The adjacencies this context has built come along as
  /// block-diagonal copies (SparseMatrix::block_diagonal) with each edge's weight and stored
  /// entry: the matrices and per-edge entries building them again would give, without the
  /// sort. TargetForward's batch of integration steps is such a batch of copies.
  GraphContext disjoint_copies(int64_t copies) const;

  /// Attach edge features [E, D] keyed by the edge ids of `plain()`. The looped view gets
  /// the features of the edges it keeps and zeros on the self-loops it adds. Views and
  /// derived graphs built before are rebuilt (copies made before keep theirs); a context
  /// with an edge mask is refused (attend::Error).
  void set_edge_features(const Tensor& features);

  /// The edges of `view(self_loops)` over (node, relation) slots (see ops::RelationSlots),
  /// for relational layers: only slots that edges use are projected. Built on first use and
  /// cached; safe to call from several threads. Throws attend::Error when an edge's relation
  /// is not below `num_relations`. With an edge mask the Csrs carry it and `mean` gets
  /// differentiable values (built per call; the cached index is the unmasked one).
  std::shared_ptr<const RelationalIndex> relational_index(bool self_loops, int64_t num_relations,
                                                          bool for_attention) const;

  /// The adjacency matrix of `view(self_loops)` as a constant sparse matrix [N, N]: entry
  /// (i, j) = 1 for the edge j -> i, or, with `normalize`, 1 / sqrt(d_i d_j) where d is the
  /// in-degree in that view (the symmetric normalisation of Kipf & Welling 2017; 0 where a
  /// degree is 0). Built on first use and cached; safe to call from several threads. With an
  /// edge mask, a copy whose stored entry (i, j) is the sum over the edges j -> i of weight
  /// times mask, as differentiable values (degrees unmasked).
  std::shared_ptr<const SparseMatrix> adjacency(bool self_loops, bool normalize) const;

  /// BFS shortest-path distances [N * N] of the plain view taken as undirected, capped at
  /// `max_distance + 1` (also for unreachable pairs); see graph::shortest_path_distances.
  /// An edge mask does not change them.
  /// Computed on first use per cap and cached; safe to call from several threads.
  std::shared_ptr<const std::vector<int32_t>> distances(int32_t max_distance) const;

 private:
  struct Cache;
  struct Adjacency;
  struct MaskedViews;
  /// The views without the edge mask (the cached ones).
  const GraphView& unmasked_plain() const;
  const GraphView& unmasked_looped() const;
  const GraphView& unmasked_view(bool self_loops) const { return self_loops ? unmasked_looped() : unmasked_plain(); }
  /// The edge mask [E] by edge id of `view(self_loops)`; undefined without a mask.
  const Var& view_mask(bool self_loops) const;
  Adjacency build_adjacency(bool self_loops, bool normalize) const;  // of view(self_loops)
  std::shared_ptr<const RelationalIndex> cached_relational_index(bool self_loops, int64_t num_relations,
                                                                 bool for_attention) const;
  /// [E_looped] plain edge id of each looped edge, -1 for added self-loops (built with `looped`).
  const std::vector<int64_t>& looped_origin() const;
  int64_t num_nodes_ = 0;
  int64_t num_relations_ = 1;
  std::shared_ptr<const InEdgeIndex> in_edges_ = std::make_shared<const InEdgeIndex>();  ///< shared by copies
  Tensor edge_features_;                         ///< [E, D] by plain edge id, or rank 0
  /// With an edge mask (with_edge_mask): the mask and the views carrying it; null without.
  std::shared_ptr<MaskedViews> masked_;
  /// [N] each, or empty (the views' own in-degrees): see set_normalization_degrees.
  std::vector<int64_t> plain_degree_, looped_degree_;
  std::shared_ptr<Cache> cache_;        ///< lazily built views and derived graphs (shared by copies)
};

}  // namespace attend::graph
