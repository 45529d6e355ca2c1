#include "attend/graph/in_edge_index.hpp"

#include <algorithm>
#include <string>

#include "attend/core/error.hpp"
#include "attend/core/parallel.hpp"

namespace attend::graph {

namespace {

// Row pointers [N + 1] from per-node counts held at indptr[i + 1].
void prefix_sum(std::vector<int64_t>& indptr) {
  for (std::size_t i = 1; i < indptr.size(); ++i) indptr[i] += indptr[i - 1];
}

}  // namespace

InEdgeIndex::InEdgeIndex() : indptr_{0} {}

std::size_t InEdgeIndex::bytes() const {
  return indptr_.capacity() * sizeof(int64_t) + source_.bytes() + edge_id_.bytes() + relation_.bytes() +
         self_loops_.bytes();
}

void InEdgeIndex::finish() {
  const int64_t n = num_nodes();
  bool identity = true;
  for (int64_t p = 0; p < static_cast<int64_t>(edge_id_.size()) && identity; ++p) identity = edge_id_[p] == p;
  if (identity) edge_id_ = CompactIds();
  bool untyped = true;
  for (std::size_t p = 0; p < relation_.size() && untyped; ++p) untyped = relation_[p] == 0;
  if (untyped) relation_ = CompactIds();
  std::vector<int64_t> loops(static_cast<std::size_t>(n), 0);  // [N]
  int64_t most = 0;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t p = indptr_[i]; p < indptr_[i + 1]; ++p) loops[i] += source(p) == i;
    most = std::max(most, loops[i]);
  }
  self_loops_ = CompactIds();
  if (most > 0) {
    self_loops_ = CompactIds(loops.size(), most);
    for (std::size_t i = 0; i < loops.size(); ++i) self_loops_.set(i, loops[i]);
  }
}

InEdgeIndex InEdgeIndex::from_edges(int64_t num_nodes, const std::vector<int64_t>& src, const std::vector<int64_t>& dst,
                                    const std::vector<int64_t>& relation) {
  ATTEND_CHECK(num_nodes >= 0, "InEdgeIndex::from_edges: negative node count " << num_nodes);
  ATTEND_CHECK(src.size() == dst.size() && src.size() == relation.size(),
               "InEdgeIndex::from_edges: " << src.size() << " sources, " << dst.size() << " destinations, "
                                           << relation.size() << " relations");
  const auto e_count = static_cast<int64_t>(src.size());
  int64_t most_relation = 0;
  for (int64_t e = 0; e < e_count; ++e) {
    ATTEND_CHECK(src[e] >= 0 && src[e] < num_nodes && dst[e] >= 0 && dst[e] < num_nodes,
                 "InEdgeIndex::from_edges: edge " << e << " (" << src[e] << " -> " << dst[e]
                                                  << ") has a node outside [0, " << num_nodes << ")");
    ATTEND_CHECK(relation[e] >= 0, "InEdgeIndex::from_edges: edge " << e << " has relation " << relation[e]);
    most_relation = std::max(most_relation, relation[e]);
  }
  InEdgeIndex index;
  index.indptr_.assign(static_cast<std::size_t>(num_nodes) + 1, 0);
  for (int64_t e = 0; e < e_count; ++e) ++index.indptr_[dst[e] + 1];
  prefix_sum(index.indptr_);
  index.source_ = CompactIds(src.size(), num_nodes - 1);
  index.edge_id_ = CompactIds(src.size(), e_count - 1);
  index.relation_ = CompactIds(src.size(), most_relation);
  std::vector<int64_t> next(index.indptr_.begin(), index.indptr_.end() - 1);  // [N]
  for (int64_t e = 0; e < e_count; ++e) {  // stable: a row's positions follow edge ids
    const auto p = static_cast<std::size_t>(next[dst[e]]++);
    index.source_.set(p, src[e]);
    index.edge_id_.set(p, e);
    index.relation_.set(p, relation[e]);
  }
  index.finish();
  return index;
}

InEdgeIndex InEdgeIndex::from_dataset_edges(int64_t num_nodes, bool directed, int64_t relations,
                                            const DatasetEdgeBlocks& blocks) {
  ATTEND_CHECK(num_nodes >= 0 && relations >= 1,
               "InEdgeIndex::from_dataset_edges: " << num_nodes << " nodes, " << relations << " relations");
  InEdgeIndex index;
  index.indptr_.assign(static_cast<std::size_t>(num_nodes) + 1, 0);
  // Counting pass: both directions of every dataset edge, with the checks.
  int64_t first = 0;  // dataset edge number of the block's first edge
  blocks([&](const DatasetEdgeBlock& b) {
    ATTEND_CHECK(b.src.size() == b.dst.size() && (b.type.empty() || b.type.size() == b.src.size()),
                 "InEdgeIndex::from_dataset_edges: a block of " << b.src.size() << " sources, " << b.dst.size()
                                                                << " destinations, " << b.type.size() << " types");
    for (std::size_t k = 0; k < b.src.size(); ++k) {
      const int64_t u = b.src[k], v = b.dst[k];
      if (u < 0 || u >= num_nodes || v < 0 || v >= num_nodes) {
        throw InputError("edge " + std::to_string(first + static_cast<int64_t>(k)) + " (" + std::to_string(u) + ", " +
                         std::to_string(v) + ") outside 0.." + std::to_string(num_nodes - 1));
      }
      if (!b.type.empty() && (b.type[k] < 0 || b.type[k] >= relations)) {
        throw InputError("edge " + std::to_string(first + static_cast<int64_t>(k)) + " has relation " +
                         std::to_string(b.type[k]) + " outside 0.." + std::to_string(relations - 1));
      }
      ++index.indptr_[v + 1];
      ++index.indptr_[u + 1];
    }
    first += static_cast<int64_t>(b.src.size());
  });
  prefix_sum(index.indptr_);
  const auto slots = static_cast<std::size_t>(index.indptr_.back());
  index.source_ = CompactIds(slots, num_nodes - 1);
  if (directed) {
    index.edge_id_ = CompactIds(slots, static_cast<int64_t>(slots) - 1);
    index.relation_ = CompactIds(slots, 2 * relations - 1);
  }
  // Filling pass, in edge order (directed: 2k before 2k + 1), so each row follows edge ids.
  std::vector<int64_t> next(index.indptr_.begin(), index.indptr_.end() - 1);  // [N]
  int64_t edge = 0;  // dataset edge number
  blocks([&](const DatasetEdgeBlock& b) {
    for (std::size_t k = 0; k < b.src.size(); ++k, ++edge) {
      const int64_t u = b.src[k], v = b.dst[k];
      const auto forward = static_cast<std::size_t>(next[v]++), inverse = static_cast<std::size_t>(next[u]++);
      index.source_.set(forward, u);
      index.source_.set(inverse, v);
      if (!directed) continue;
      const int64_t type = b.type.empty() ? 0 : b.type[k];
      index.edge_id_.set(forward, 2 * edge);
      index.edge_id_.set(inverse, 2 * edge + 1);
      index.relation_.set(forward, type);
      index.relation_.set(inverse, type + relations);
    }
  });
  ATTEND_CHECK(edge * 2 == static_cast<int64_t>(slots), "InEdgeIndex::from_dataset_edges: the blocks gave "
                                                            << edge << " edges on the second pass, "
                                                            << slots / 2 << " on the first");
  if (!directed) {
    // graph::symmetrize: each row sorted by source, duplicates dropped; rows then moved down
    // over the gaps. Rows are independent, so the parallel sort is the same for any thread count.
    std::vector<int64_t> kept(static_cast<std::size_t>(num_nodes));  // [N]
    index.source_.visit([&](auto& source) {
      parallel_for(0, num_nodes, [&](int64_t i) {
        const auto begin = source.begin() + index.indptr_[i], end = source.begin() + index.indptr_[i + 1];
        std::sort(begin, end);
        kept[i] = std::unique(begin, end) - begin;
      });
      int64_t out = 0;
      for (int64_t i = 0; i < num_nodes; ++i) {
        const int64_t from = index.indptr_[i];  // read before row i's pointer moves
        std::copy(source.begin() + from, source.begin() + from + kept[i], source.begin() + out);
        index.indptr_[i] = out;
        out += kept[i];
      }
      index.indptr_[num_nodes] = out;
      // A copy to give back the dropped slots pays only when many were duplicates (a dataset
      // listing both directions of its pairs); else it would double the peak for little.
      const bool many_dropped = 4 * (static_cast<int64_t>(source.size()) - out) > static_cast<int64_t>(source.size());
      source.resize(static_cast<std::size_t>(out));
      if (many_dropped) source.shrink_to_fit();
    });
  }
  index.finish();
  return index;
}

}  // namespace attend::graph
