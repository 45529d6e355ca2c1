#include "attend/graph/neighbor_sampler.hpp"

#include <algorithm>
#include <numeric>
#include <string>
#include <unordered_map>
#include <utility>

#include "attend/core/error.hpp"
#include "attend/core/ops/indexing.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/random.hpp"

namespace attend::graph {

namespace {

// The key of one node's draws: (seed, batch, hop, node) through a chain of mixes, so nearby
// tuples give unrelated streams.
uint64_t draw_key(uint64_t seed, uint64_t batch, int64_t hop, int64_t node) {
  return mix64(mix64(mix64(mix64(seed) + batch) + static_cast<uint64_t>(hop)) + static_cast<uint64_t>(node));
}

// The 64-bit draw number `index` of the stream `key`.
uint64_t draw(uint64_t key, uint64_t index) { return mix64(key ^ mix64(index)); }

// A draw mapped to [0, n) by the high bits of a 128-bit product (Lemire's multiply-shift;
// bias at most n / 2^64).
int64_t draw_below(uint64_t bits, int64_t n) {
  return static_cast<int64_t>((static_cast<unsigned __int128>(bits) * static_cast<uint64_t>(n)) >> 64);
}

// Choose from `positions` (of `index`: one node's in-edges of one group, in increasing order)
// by the options, into `out`. Without replacement: the `fanout` positions whose edges have the
// smallest draws keyed by edge id (a uniform subset, whatever the order), in increasing order;
// with: `fanout` draws of a position. Within a row, positions follow edge ids, so this is the
// choice among the edge ids themselves.
void choose(const InEdgeIndex& index, const std::vector<int64_t>& positions, int64_t fanout, bool replace,
            uint64_t key, std::vector<int64_t>& out) {
  const auto n = static_cast<int64_t>(positions.size());
  if (n == 0) return;
  if (fanout < 0 || (!replace && fanout >= n)) {
    out.insert(out.end(), positions.begin(), positions.end());
    return;
  }
  if (replace) {
    for (int64_t t = 0; t < fanout; ++t) out.push_back(positions[draw_below(draw(key, static_cast<uint64_t>(t)), n)]);
    return;
  }
  std::vector<std::pair<uint64_t, int64_t>> keyed;  // (draw, position)
  keyed.reserve(positions.size());
  for (int64_t p : positions) keyed.emplace_back(draw(key, static_cast<uint64_t>(index.edge_id(p))), p);
  std::partial_sort(keyed.begin(), keyed.begin() + fanout, keyed.end());
  std::vector<int64_t> picked;
  for (int64_t t = 0; t < fanout; ++t) picked.push_back(keyed[t].second);
  std::sort(picked.begin(), picked.end());
  out.insert(out.end(), picked.begin(), picked.end());
}

// The sampled in-edges (positions in `index`, the whole graph's) of `node` at `hop`.
std::vector<int64_t> sample_in_edges(const InEdgeIndex& index, int64_t node, int64_t hop, int64_t fanout,
                                     const NeighborSamplerOptions& o, uint64_t batch) {
  const int64_t begin = index.indptr()[node], end = index.indptr()[node + 1];
  const uint64_t key = draw_key(o.seed, batch, hop, node);
  std::vector<int64_t> out;
  if (!o.per_relation) {
    if (fanout < 0 || (!o.replace && fanout >= end - begin)) {  // every in-edge: the positions themselves
      out.resize(static_cast<std::size_t>(end - begin));
      std::iota(out.begin(), out.end(), begin);
      return out;
    }
    std::vector<int64_t> positions(static_cast<std::size_t>(end - begin));
    std::iota(positions.begin(), positions.end(), begin);
    choose(index, positions, fanout, o.replace, key, out);
    return out;
  }
  std::vector<std::pair<int64_t, int64_t>> by_relation;  // (relation, position)
  for (int64_t p = begin; p < end; ++p) by_relation.emplace_back(index.relation(p), p);
  std::sort(by_relation.begin(), by_relation.end());
  std::vector<int64_t> group;
  for (std::size_t i = 0; i < by_relation.size(); ++i) {
    group.push_back(by_relation[i].second);
    if (i + 1 == by_relation.size() || by_relation[i + 1].first != by_relation[i].first) {
      choose(index, group, fanout, o.replace, mix64(key + static_cast<uint64_t>(by_relation[i].first)), out);
      group.clear();
    }
  }
  return out;
}

}  // namespace

SampledSubgraph sample_neighbors(const GraphContext& graph, const std::vector<int64_t>& seeds,
                                 const NeighborSamplerOptions& o, uint64_t batch) {
  if (o.fanouts.empty()) throw InputError("neighbour sampling needs one fan-out per hop (per message-passing layer), got none");
  for (int64_t f : o.fanouts) {
    if (f == 0 || f < -1) throw InputError("a fan-out must be positive or -1 (all neighbours), got " + std::to_string(f));
  }
  const InEdgeIndex& index = graph.in_edges();
  const int64_t n_graph = graph.num_nodes();

  SampledSubgraph s;
  std::unordered_map<int64_t, int64_t> local_of;  // whole-graph id -> local id
  for (int64_t v : seeds) {
    if (v < 0 || v >= n_graph) {
      throw InputError("seed node " + std::to_string(v) + " is not in the graph (" + std::to_string(n_graph) + " nodes)");
    }
    if (!local_of.emplace(v, static_cast<int64_t>(s.node_ids.size())).second) {
      throw InputError("seed node " + std::to_string(v) + " is repeated in the batch");
    }
    s.seed_positions.push_back(static_cast<int64_t>(s.node_ids.size()));
    s.node_ids.push_back(v);
    s.hop.push_back(0);
  }

  std::vector<int64_t> src, dst, relation;  // the sample's plain edges, local ids
  int64_t frontier_begin = 0;
  for (int64_t hop = 0; hop < static_cast<int64_t>(o.fanouts.size()); ++hop) {
    const int64_t frontier_end = static_cast<int64_t>(s.node_ids.size());
    // Each node's draws depend only on its key: sampled in parallel, merged in node order.
    std::vector<std::vector<int64_t>> picked(static_cast<std::size_t>(frontier_end - frontier_begin));
    parallel_for(frontier_begin, frontier_end, [&](int64_t local) {
      picked[local - frontier_begin] = sample_in_edges(index, s.node_ids[local], hop, o.fanouts[hop], o, batch);
    });
    for (int64_t local = frontier_begin; local < frontier_end; ++local) {
      for (int64_t p : picked[local - frontier_begin]) {
        const int64_t from = index.source(p);
        auto [it, added] = local_of.emplace(from, static_cast<int64_t>(s.node_ids.size()));
        if (added) {
          s.node_ids.push_back(from);
          s.hop.push_back(hop + 1);
        }
        src.push_back(it->second);
        dst.push_back(local);
        relation.push_back(index.relation(p));
        s.edge_ids.push_back(index.edge_id(p));
      }
    }
    frontier_begin = frontier_end;
  }

  const auto n = static_cast<int64_t>(s.node_ids.size());
  s.graph = GraphContext::from_edges(n, graph.num_relations(), std::move(src), std::move(dst), std::move(relation));
  std::vector<int64_t> plain_degree(n), looped_degree(n);
  for (int64_t i = 0; i < n; ++i) {  // the looped view drops a node's self-loops and adds one
    plain_degree[i] = index.in_degree(s.node_ids[i]);
    looped_degree[i] = plain_degree[i] - index.self_loops(s.node_ids[i]) + 1;
  }
  s.graph.set_normalization_degrees(std::move(plain_degree), std::move(looped_degree));
  const Tensor& edge_features = graph.edge_features();  // [E, D] or rank 0
  if (edge_features.rank() == 2) {
    const int64_t width = edge_features.dim(1);
    Tensor rows({static_cast<int64_t>(s.edge_ids.size()), width});  // [E_s, D]: the sampled edges' rows
    for (std::size_t e = 0; e < s.edge_ids.size(); ++e) {
      const float* from = edge_features.data() + s.edge_ids[e] * width;
      std::copy(from, from + width, rows.data() + static_cast<int64_t>(e) * width);
    }
    s.graph.set_edge_features(rows);
  }
  return s;
}

std::vector<std::vector<int64_t>> seed_batches(std::vector<int64_t> nodes, int64_t batch_size, bool shuffle,
                                               uint64_t seed) {
  if (batch_size <= 0) throw InputError("the batch size must be positive, got " + std::to_string(batch_size));
  if (shuffle) {
    Rng rng(seed);
    for (std::size_t i = nodes.size(); i > 1; --i) std::swap(nodes[i - 1], nodes[rng.below(i)]);
  }
  std::vector<std::vector<int64_t>> batches;
  for (std::size_t begin = 0; begin < nodes.size(); begin += static_cast<std::size_t>(batch_size)) {
    const std::size_t end = std::min(nodes.size(), begin + static_cast<std::size_t>(batch_size));
    batches.emplace_back(nodes.begin() + static_cast<std::ptrdiff_t>(begin), nodes.begin() + static_cast<std::ptrdiff_t>(end));
  }
  return batches;
}

NodeFeatures sampled_features(const NodeFeatures& features, const std::vector<int64_t>& node_ids) {
  if (!features.is_sparse()) return NodeFeatures(ops::gather_rows(features.dense, node_ids));
  return select_rows(features, node_ids);
}

NodeFeatureRows in_memory_rows(NodeFeatures features) {
  return [features = std::move(features)](const std::vector<int64_t>& node_ids) {
    return sampled_features(features, node_ids);
  };
}

}  // namespace attend::graph
