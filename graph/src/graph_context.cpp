#include "attend/graph/graph_context.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <numeric>
#include <utility>
#include <tuple>
#include <unordered_map>

#include "attend/core/error.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/ops/indexing.hpp"
#include "attend/core/ops/shape.hpp"
#include "attend/graph/graph_algorithms.hpp"

namespace attend::graph {

/// An adjacency matrix, and the weight and stored entry of each edge of its view in it (the
/// masked copy scales these per edge).
struct GraphContext::Adjacency {
  std::shared_ptr<const SparseMatrix> matrix;  ///< [N, N]
  std::vector<float> edge_weight;              ///< [E] by edge id of the view
  std::vector<int64_t> edge_entry;             ///< [E] by edge id of the view
  bool entry_is_edge = false;                  ///< edge_entry[e] == e for every edge, and E == nnz
};

struct GraphContext::Cache {
  std::once_flag plain_built, looped_built;
  GraphView plain, looped;
  std::vector<int64_t> looped_origin;  ///< [E_looped] plain edge id, -1 for added self-loops
  std::mutex mutex;
  std::map<std::tuple<bool, int64_t, bool>, std::shared_ptr<const RelationalIndex>> relational;
  std::map<int32_t, std::shared_ptr<const std::vector<int32_t>>> distances;
  std::map<std::pair<bool, bool>, Adjacency> adjacency;
};

/// An edge mask and, built on first use, the views and the looped view's mask it gives.
struct GraphContext::MaskedViews {
  Var plain_mask;  ///< [E] by plain edge id
  std::once_flag plain_built, looped_built, looped_mask_built;
  GraphView plain, looped;  ///< the cached views with the mask in their Csrs
  Var looped_mask;          ///< [E_looped] by looped edge id
  /// Whether looped_mask's gather was recorded for backward: it is built on first use, under
  /// that moment's recording mode, and a mask built unrecorded must not be used to record.
  bool looped_mask_recorded = false;

  /// Refuses a recorded use of a looped mask built unrecorded, whose gradient would silently
  /// miss the self-loop view's edges.
  void check_looped_recording() const {
    ATTEND_CHECK(looped_mask_recorded || !grad_enabled() || !plain_mask.requires_grad(),
                 "a masked graph's self-loop view was first used without gradient recording and is now "
                 "used with it: mask the graph again (with_edge_mask) for the recorded pass");
  }
};

namespace {
GraphView make_view(int64_t n, std::vector<int64_t> src, std::vector<int64_t> dst,
                    std::vector<int64_t> relation) {
  GraphView v;
  v.csr = Csr::from_edges(n, src, dst);
  v.src = std::move(src);
  v.dst = std::move(dst);
  v.relation = std::move(relation);
  return v;
}

/// The plain view of `index`: its Csr takes the index's rows as they are (the order
/// Csr::from_edges gives the same edges), the per-edge-id arrays are scattered from them.
GraphView plain_view(const InEdgeIndex& index, const Tensor& edge_features) {
  const int64_t n = index.num_nodes(), e_count = index.num_edges();
  GraphView v;
  v.src.resize(static_cast<std::size_t>(e_count));
  v.dst.resize(v.src.size());
  v.relation.resize(v.src.size());
  std::vector<int64_t> row_src(v.src.size()), row_edge(v.src.size());  // [E] by position
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t p = index.indptr()[i]; p < index.indptr()[i + 1]; ++p) {
      const int64_t e = index.edge_id(p);
      row_src[p] = index.source(p);
      row_edge[p] = e;
      v.src[e] = row_src[p];
      v.dst[e] = i;
      v.relation[e] = index.relation(p);
    }
  }
  v.csr = Csr(n, index.indptr(), std::move(row_src), std::move(row_edge));
  v.edge_features = edge_features;
  return v;
}

/// The looped view of `plain` (self-loops dropped, one per node added with relation
/// `self_relation`), and in `origin` the plain edge id of each of its edges (-1: added).
GraphView looped_view(const GraphView& plain, int64_t n, int64_t self_relation, std::vector<int64_t>& origin) {
  std::vector<int64_t> lsrc, ldst, lrel;
  for (int64_t e = 0; e < plain.num_edges(); ++e) {
    if (plain.src[e] == plain.dst[e]) continue;
    lsrc.push_back(plain.src[e]);
    ldst.push_back(plain.dst[e]);
    lrel.push_back(plain.relation[e]);
    origin.push_back(e);
  }
  for (int64_t v = 0; v < n; ++v) {
    lsrc.push_back(v);
    ldst.push_back(v);
    lrel.push_back(self_relation);
    origin.push_back(-1);
  }
  GraphView looped = make_view(n, std::move(lsrc), std::move(ldst), std::move(lrel));
  if (plain.has_edge_features()) {
    const int64_t d = plain.edge_features.dim(1);
    looped.edge_features = Tensor({looped.num_edges(), d});  // [E_looped, D], zeros on added self-loops
    for (int64_t e = 0; e < looped.num_edges(); ++e) {
      const int64_t from = origin[e];
      if (from < 0) continue;
      std::copy(plain.edge_features.data() + from * d, plain.edge_features.data() + (from + 1) * d,
                looped.edge_features.data() + e * d);
    }
  }
  return looped;
}

/// The stored entry [E] of each edge of `matrix`, built from the triplets (row[e], col[e], .):
/// found by binary search in its row (indices are sorted per row).
std::vector<int64_t> stored_entries(const SparseMatrix& matrix, const std::vector<int64_t>& row,
                                    const std::vector<int64_t>& col) {
  std::vector<int64_t> entry(row.size());
  const auto& indptr = matrix.indptr();
  const auto& indices = matrix.indices();
  for (std::size_t e = 0; e < row.size(); ++e) {
    const auto first = indices.begin() + indptr[row[e]], last = indices.begin() + indptr[row[e] + 1];
    const auto found = std::lower_bound(first, last, col[e]);
    ATTEND_CHECK(found != last && *found == col[e], "stored_entries: edge " << e << " is not stored");
    entry[e] = found - indices.begin();
  }
  return entry;
}

/// The source and destination [E] of each edge of `index` by edge id.
void edges_by_id(const InEdgeIndex& index, std::vector<int64_t>& src, std::vector<int64_t>& dst) {
  src.resize(static_cast<std::size_t>(index.num_edges()));
  dst.resize(src.size());
  for (int64_t i = 0; i < index.num_nodes(); ++i) {
    for (int64_t p = index.indptr()[i]; p < index.indptr()[i + 1]; ++p) {
      const int64_t e = index.edge_id(p);
      src[e] = index.source(p);
      dst[e] = i;
    }
  }
}

/// Whether the entries (row[e], col[e]) are in strictly increasing (row, column) order:
/// from_triplets then stores entry e at position e.
bool in_row_major_order(const std::vector<int64_t>& row, const std::vector<int64_t>& col) {
  for (std::size_t e = 1; e < row.size(); ++e) {
    if (row[e - 1] > row[e] || (row[e - 1] == row[e] && col[e - 1] >= col[e])) return false;
  }
  return true;
}

/// `matrix` with differentiable values: stored entry k = sum over the edges e stored in it
/// (entry[e] = k) of weight[e] * mask[e] (mask [E] by edge id), in edge order; with
/// `entry_is_edge` (edge e is entry e) the products themselves.
std::shared_ptr<const SparseMatrix> masked_matrix(const SparseMatrix& matrix, const std::vector<int64_t>& entry,
                                                  bool entry_is_edge, const std::vector<float>& weight, const Var& mask) {
  const Var weighted = ops::mul(mask, Var(Tensor({static_cast<int64_t>(weight.size())}, weight)));  // [E]
  const Var values = entry_is_edge ? weighted : ops::scatter_add_rows(weighted, entry, matrix.nnz());  // [nnz]
  return std::make_shared<const SparseMatrix>(matrix.with_differentiable_values(values));
}
/// The dataset's edge features [E, D] carried to the edges of `plain` as from_dataset builds
/// them: a directed edge and its inverse both get the row of the dataset edge; an undirected
/// pair gets, both ways, the row of the first dataset edge that lists it (either way round).
Tensor plain_edge_features(const NodeDataset& d, const GraphView& plain) {
  const int64_t width = d.edge_feature_dim;
  std::vector<int64_t> origin(static_cast<std::size_t>(plain.num_edges()));  // [E_plain] dataset edge
  if (d.directed) {
    for (std::size_t e = 0; e < origin.size(); ++e) origin[e] = static_cast<int64_t>(e / 2);
  } else {
    std::unordered_map<uint64_t, int64_t> first;  // unordered pair -> first dataset edge
    const auto key = [&](int64_t u, int64_t v) {
      return static_cast<uint64_t>(std::min(u, v)) * static_cast<uint64_t>(d.num_nodes) + static_cast<uint64_t>(std::max(u, v));
    };
    for (int64_t e = d.num_edges() - 1; e >= 0; --e) first[key(d.edge_src[e], d.edge_dst[e])] = e;
    for (std::size_t e = 0; e < origin.size(); ++e) origin[e] = first.at(key(plain.src[e], plain.dst[e]));
  }
  Tensor features({plain.num_edges(), width});  // [E_plain, D]
  for (std::size_t e = 0; e < origin.size(); ++e) {
    const float* row = d.edge_features.data() + origin[e] * width;
    std::copy(row, row + width, features.data() + static_cast<int64_t>(e) * width);
  }
  return features;
}
}  // namespace

GraphContext GraphContext::from_dataset(const NodeDataset& d) {
  const int64_t r = std::max<int64_t>(d.num_relations(), 1);
  InEdgeIndex index = InEdgeIndex::from_dataset_edges(d.num_nodes, d.directed, r, [&](const auto& visit) {
    visit(DatasetEdgeBlock{d.edge_src, d.edge_dst, d.edge_type});
  });
  // Undirected: the edges, and the self-loops; directed: R relations, their inverses and "self".
  GraphContext g = from_in_edges(d.directed ? 2 * r + 1 : 2, std::move(index));
  if (d.has_edge_features()) g.set_edge_features(plain_edge_features(d, g.plain()));
  return g;
}

GraphContext GraphContext::from_edges(int64_t num_nodes, int64_t num_relations, std::vector<int64_t> src,
                                      std::vector<int64_t> dst, std::vector<int64_t> rel) {
  ATTEND_CHECK(src.size() == dst.size() && src.size() == rel.size(),
               "from_edges: " << src.size() << " sources, " << dst.size() << " destinations, " << rel.size()
                              << " relations");
  return from_in_edges(num_relations, InEdgeIndex::from_edges(num_nodes, src, dst, rel));
}

GraphContext GraphContext::from_in_edges(int64_t num_relations, InEdgeIndex in_edges) {
  GraphContext g;
  g.cache_ = std::make_shared<Cache>();
  g.num_nodes_ = in_edges.num_nodes();
  g.num_relations_ = num_relations;
  g.in_edges_ = std::make_shared<const InEdgeIndex>(std::move(in_edges));
  return g;
}

const GraphView& GraphContext::plain() const {
  if (!masked_) return unmasked_plain();
  std::call_once(masked_->plain_built, [&] {
    masked_->plain = unmasked_plain();
    masked_->plain.csr = masked_->plain.csr.with_edge_scale(masked_->plain_mask);
  });
  return masked_->plain;
}

const GraphView& GraphContext::looped() const {
  if (!masked_) return unmasked_looped();
  std::call_once(masked_->looped_built, [&] {
    masked_->looped = unmasked_looped();
    masked_->looped.csr = masked_->looped.csr.with_edge_scale(view_mask(true));
  });
  masked_->check_looped_recording();
  return masked_->looped;
}

const GraphView& GraphContext::unmasked_plain() const {
  static const GraphView kEmpty;
  if (!cache_) return kEmpty;
  std::call_once(cache_->plain_built, [&] { cache_->plain = plain_view(*in_edges_, edge_features_); });
  return cache_->plain;
}

const GraphView& GraphContext::unmasked_looped() const {
  static const GraphView kEmpty;
  if (!cache_) return kEmpty;
  const GraphView& from = unmasked_plain();
  std::call_once(cache_->looped_built,
                 [&] { cache_->looped = looped_view(from, num_nodes_, num_relations_ - 1, cache_->looped_origin); });
  return cache_->looped;
}

const std::vector<int64_t>& GraphContext::looped_origin() const {
  unmasked_looped();
  static const std::vector<int64_t> kNone;
  return cache_ ? cache_->looped_origin : kNone;
}

void GraphContext::set_normalization_degrees(std::vector<int64_t> plain, std::vector<int64_t> looped) {
  ATTEND_CHECK(static_cast<int64_t>(plain.size()) == num_nodes_ && static_cast<int64_t>(looped.size()) == num_nodes_,
               "set_normalization_degrees: " << plain.size() << " and " << looped.size() << " degrees for "
                                             << num_nodes_ << " nodes");
  ATTEND_CHECK(cache_ != nullptr, "set_normalization_degrees on a GraphContext not built by from_edges");
  std::lock_guard<std::mutex> lock(cache_->mutex);
  ATTEND_CHECK(cache_->adjacency.empty(), "set_normalization_degrees after an adjacency was built");
  plain_degree_ = std::move(plain);
  looped_degree_ = std::move(looped);
}

int64_t GraphContext::normalization_degree(int64_t node, bool self_loops) const {
  ATTEND_CHECK(node >= 0 && node < num_nodes_, "normalization_degree of node " << node << " of " << num_nodes_);
  const std::vector<int64_t>& given = self_loops ? looped_degree_ : plain_degree_;
  if (!given.empty()) return given[node];
  return self_loops ? unmasked_looped().csr.in_degree(node) : in_edges_->in_degree(node);
}

GraphContext GraphContext::with_edge_mask(Var mask) const {
  const int64_t n_edges = in_edges().num_edges();
  ATTEND_CHECK(mask.defined() && mask.value().shape() == (Shape{n_edges}),
               "with_edge_mask: a mask of shape " << (mask.defined() ? shape_to_string(mask.value().shape()) : "undefined")
                                                  << ", expected [E] = [" << n_edges << "]");
  GraphContext masked = *this;
  masked.masked_ = std::make_shared<MaskedViews>();
  masked.masked_->plain_mask = std::move(mask);
  return masked;
}

GraphContext GraphContext::disjoint_copies(int64_t copies) const {
  ATTEND_CHECK(copies >= 1, "disjoint_copies: " << copies << " copies");
  ATTEND_CHECK(!has_edge_mask() && cache_ != nullptr, "disjoint_copies of a masked graph or one not built by from_edges");
  const int64_t n = num_nodes_, e_count = in_edges_->num_edges();
  std::vector<int64_t> src, dst, relation(static_cast<std::size_t>(e_count));  // [E] by edge id
  edges_by_id(*in_edges_, src, dst);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t p = in_edges_->indptr()[i]; p < in_edges_->indptr()[i + 1]; ++p) {
      relation[in_edges_->edge_id(p)] = in_edges_->relation(p);
    }
  }
  const auto count = static_cast<std::size_t>(copies * e_count);
  std::vector<int64_t> all_src(count), all_dst(count), all_relation(count);  // [copies E]
  for (int64_t k = 0; k < copies; ++k) {
    for (int64_t e = 0; e < e_count; ++e) {
      all_src[k * e_count + e] = k * n + src[e];
      all_dst[k * e_count + e] = k * n + dst[e];
      all_relation[k * e_count + e] = relation[e];
    }
  }
  GraphContext out = from_edges(copies * n, num_relations_, std::move(all_src), std::move(all_dst), std::move(all_relation));
  if (edge_features_.rank() == 2) {
    const int64_t width = edge_features_.dim(1);
    Tensor features({copies * e_count, width});  // [copies E, D]
    for (int64_t k = 0; k < copies; ++k) {
      std::copy_n(edge_features_.data(), e_count * width, features.data() + k * e_count * width);
    }
    out.set_edge_features(features);
  }
  const auto repeated = [&](const std::vector<int64_t>& v) {
    std::vector<int64_t> all;
    all.reserve(static_cast<std::size_t>(copies) * v.size());
    for (int64_t k = 0; k < copies; ++k) all.insert(all.end(), v.begin(), v.end());
    return all;
  };
  if (!plain_degree_.empty()) out.set_normalization_degrees(repeated(plain_degree_), repeated(looped_degree_));

  std::lock_guard<std::mutex> lock(cache_->mutex);
  for (const auto& [key, built] : cache_->adjacency) {
    if (!built.matrix) continue;
    // The view's edges by id: the plain view's are copy-major; the looped view holds the
    // plain edges that are not self-loops, then one self-loop per node, so copy k's kept
    // edge j is edge k J + j and its self-loop of node v is copies J + k n + v.
    const bool self_loops = key.first;
    const auto view_edges = static_cast<int64_t>(built.edge_weight.size());
    const int64_t kept = self_loops ? view_edges - n : view_edges, loops = view_edges - kept;
    const int64_t stored = built.matrix->nnz();
    Adjacency a;
    a.matrix = std::make_shared<const SparseMatrix>(built.matrix->block_diagonal(copies));
    a.edge_weight.resize(static_cast<std::size_t>(copies * view_edges));
    a.edge_entry.resize(a.edge_weight.size());
    for (int64_t k = 0; k < copies; ++k) {
      for (int64_t j = 0; j < kept; ++j) {
        a.edge_weight[k * kept + j] = built.edge_weight[j];
        a.edge_entry[k * kept + j] = k * stored + built.edge_entry[j];
      }
      for (int64_t v = 0; v < loops; ++v) {
        a.edge_weight[copies * kept + k * loops + v] = built.edge_weight[kept + v];
        a.edge_entry[copies * kept + k * loops + v] = k * stored + built.edge_entry[kept + v];
      }
    }
    a.entry_is_edge = a.matrix->nnz() == static_cast<int64_t>(a.edge_entry.size());
    for (std::size_t e = 0; e < a.edge_entry.size() && a.entry_is_edge; ++e) a.entry_is_edge = a.edge_entry[e] == static_cast<int64_t>(e);
    out.cache_->adjacency.emplace(key, std::move(a));
  }
  return out;
}

const Var& GraphContext::view_mask(bool self_loops) const {
  static const Var kNone;
  if (!masked_) return kNone;
  if (!self_loops) return masked_->plain_mask;
  // looped[e] = mask[origin] for a kept edge, 1 for an added self-loop: a gather from
  // [mask, 1] [E + 1] with index E for the self-loops.
  std::call_once(masked_->looped_mask_built, [&] {
    const int64_t n_edges = in_edges().num_edges();
    const std::vector<int64_t>& origin = looped_origin();
    std::vector<int64_t> from(origin.size());  // [E_looped]
    for (std::size_t e = 0; e < from.size(); ++e) from[e] = origin[e] < 0 ? n_edges : origin[e];
    masked_->looped_mask =
        ops::gather_rows(ops::concat({masked_->plain_mask, Var(Tensor({1}, std::vector<float>{1.0f}))}), from);
    masked_->looped_mask_recorded = grad_enabled();
  });
  masked_->check_looped_recording();
  return masked_->looped_mask;
}

void GraphContext::set_edge_features(const Tensor& features) {
  ATTEND_CHECK(features.rank() == 2 && features.dim(0) == in_edges().num_edges(),
               "edge features of shape " << shape_to_string(features.shape()) << ", expected [E, D] with E = "
                                         << in_edges().num_edges());
  ATTEND_CHECK(!has_edge_mask(), "set_edge_features on a context with an edge mask");
  edge_features_ = features;
  cache_ = std::make_shared<Cache>();  // the views carry the features: built again
}

std::shared_ptr<const RelationalIndex> GraphContext::relational_index(bool self_loops,
                                                                     int64_t num_relations,
                                                                     bool for_attention) const {
  std::shared_ptr<const RelationalIndex> index = cached_relational_index(self_loops, num_relations, for_attention);
  const Var& mask = view_mask(self_loops);  // [E] of this view
  if (!mask.defined()) return index;
  auto masked = std::make_shared<RelationalIndex>(*index);
  if (for_attention) {
    masked->csr = index->csr.with_edge_scale(mask);
    masked->within_csr = index->within_csr.with_edge_scale(mask);
  } else {
    masked->mean = masked_matrix(*index->mean, index->mean_entry, false, index->mean_weight, mask);
  }
  return masked;
}

std::shared_ptr<const RelationalIndex> GraphContext::cached_relational_index(bool self_loops,
                                                                            int64_t num_relations,
                                                                            bool for_attention) const {
  ATTEND_CHECK(cache_ != nullptr, "relational_index on a GraphContext not built by from_edges");
  ATTEND_CHECK(num_relations > 0, "relational_index: num_relations " << num_relations);
  std::lock_guard<std::mutex> lock(cache_->mutex);
  const auto key = std::make_tuple(self_loops, num_relations, for_attention);
  auto found = cache_->relational.find(key);
  if (found != cache_->relational.end()) return found->second;
  const GraphView& v = unmasked_view(self_loops);
  const int64_t n_edges = v.num_edges();
  for (int64_t e = 0; e < n_edges; ++e) {
    const int64_t r = v.relation[e];
    ATTEND_CHECK(r >= 0 && r < num_relations, "edge " << e << " has relation " << r
                                                      << " but the layer has " << num_relations
                                                      << " relations (the graph has "
                                                      << num_relations_ << ")");
  }
  std::vector<int64_t> nodes(v.src), relations(v.relation);
  if (for_attention) {
    nodes.insert(nodes.end(), v.dst.begin(), v.dst.end());
    relations.insert(relations.end(), v.relation.begin(), v.relation.end());
    for (int64_t i = 0; i < num_nodes_; ++i) {  // padding slots: S >= N rows for the Csr
      nodes.push_back(i);
      relations.push_back(0);
    }
  }
  auto index = std::make_shared<RelationalIndex>();
  auto slots = std::make_shared<const ops::RelationSlots>(
      ops::RelationSlots::from_pairs(num_nodes_, num_relations, nodes, relations));
  index->src_slot.resize(n_edges);
  for (int64_t e = 0; e < n_edges; ++e) index->src_slot[e] = slots->find(v.src[e], v.relation[e]);
  if (for_attention) {
    index->dst_slot.resize(n_edges);
    for (int64_t e = 0; e < n_edges; ++e) index->dst_slot[e] = slots->find(v.dst[e], v.relation[e]);
    index->csr = Csr::from_edges(slots->size(), index->src_slot, v.dst);
    index->within_csr = Csr::from_edges(slots->size(), index->src_slot, index->dst_slot);
    std::vector<int64_t> all_slots(slots->size());
    for (int64_t s = 0; s < slots->size(); ++s) all_slots[s] = s;
    index->slot_sum = std::make_shared<const SparseMatrix>(SparseMatrix::from_triplets(
        num_nodes_, slots->size(), slots->node, all_slots, std::vector<float>(slots->size(), 1.0f)));
  } else {
    std::map<std::pair<int64_t, int64_t>, int64_t> in_degree;  // (dst, relation) -> edges
    for (int64_t e = 0; e < n_edges; ++e) ++in_degree[{v.dst[e], v.relation[e]}];
    std::vector<float> weight(n_edges);
    for (int64_t e = 0; e < n_edges; ++e) {
      weight[e] = 1.0f / static_cast<float>(in_degree[{v.dst[e], v.relation[e]}]);
    }
    index->mean = std::make_shared<const SparseMatrix>(
        SparseMatrix::from_triplets(num_nodes_, slots->size(), v.dst, index->src_slot, weight));
    index->mean->transpose();  // built here, under the lock, and shared by masked copies
    index->mean_weight = std::move(weight);
    index->mean_entry = stored_entries(*index->mean, v.dst, index->src_slot);
  }
  index->slots = std::move(slots);
  cache_->relational.emplace(key, index);
  return index;
}

std::shared_ptr<const SparseMatrix> GraphContext::adjacency(bool self_loops, bool normalize) const {
  ATTEND_CHECK(cache_ != nullptr, "adjacency on a GraphContext not built by from_edges");
  const Adjacency* cached = nullptr;  // entries of the cache are never removed
  {
    std::lock_guard<std::mutex> lock(cache_->mutex);
    Adjacency& slot = cache_->adjacency[{self_loops, normalize}];
    if (!slot.matrix) slot = build_adjacency(self_loops, normalize);
    cached = &slot;
  }
  const Var& mask = view_mask(self_loops);  // [E] of this view
  if (!mask.defined()) return cached->matrix;
  return masked_matrix(*cached->matrix, cached->edge_entry, cached->entry_is_edge, cached->edge_weight, mask);
}

GraphContext::Adjacency GraphContext::build_adjacency(bool self_loops, bool normalize) const {
  // The plain view's edges by id are read from the index (a graph that only propagates by
  // its adjacency never builds the view), the looped view's from the view.
  std::vector<int64_t> plain_src, plain_dst;  // [E] by edge id, without self-loops
  if (!self_loops) edges_by_id(*in_edges_, plain_src, plain_dst);
  const std::vector<int64_t>& src = self_loops ? unmasked_looped().src : plain_src;
  const std::vector<int64_t>& dst = self_loops ? unmasked_looped().dst : plain_dst;
  const auto e_count = static_cast<int64_t>(src.size());
  std::vector<float> weight(static_cast<std::size_t>(e_count), 1.0f);
  if (normalize) {  // Kipf & Welling 2017, Eq. 2: D^-1/2 A D^-1/2
    std::vector<double> inv_sqrt_degree(static_cast<std::size_t>(num_nodes_), 0.0);
    for (int64_t i = 0; i < num_nodes_; ++i) {
      const int64_t degree = normalization_degree(i, self_loops);
      if (degree > 0) inv_sqrt_degree[i] = 1.0 / std::sqrt(static_cast<double>(degree));
    }
    for (int64_t e = 0; e < e_count; ++e) {
      weight[e] = static_cast<float>(inv_sqrt_degree[dst[e]] * inv_sqrt_degree[src[e]]);
    }
  }
  Adjacency adjacency;
  adjacency.matrix = std::make_shared<const SparseMatrix>(SparseMatrix::from_triplets(num_nodes_, num_nodes_, dst, src, weight));
  adjacency.matrix->transpose();  // built here, under the lock, and shared by masked copies
  adjacency.edge_weight = std::move(weight);
  adjacency.entry_is_edge = in_row_major_order(dst, src);
  if (adjacency.entry_is_edge) {  // stored as given: edge e is entry e
    adjacency.edge_entry.resize(static_cast<std::size_t>(e_count));
    std::iota(adjacency.edge_entry.begin(), adjacency.edge_entry.end(), int64_t{0});
  } else {
    adjacency.edge_entry = stored_entries(*adjacency.matrix, dst, src);
  }
  return adjacency;
}

std::shared_ptr<const std::vector<int32_t>> GraphContext::distances(int32_t max_distance) const {
  ATTEND_CHECK(cache_ != nullptr, "distances on a GraphContext not built by from_edges");
  std::lock_guard<std::mutex> lock(cache_->mutex);
  auto& slot = cache_->distances[max_distance];
  if (!slot) {
    slot = std::make_shared<const std::vector<int32_t>>(
        shortest_path_distances(EdgeList{num_nodes_, unmasked_plain().src, unmasked_plain().dst}, max_distance));
  }
  return slot;
}

}  // namespace attend::graph
