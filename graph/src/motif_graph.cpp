#include "attend/graph/motif_graph.hpp"

#include <algorithm>
#include <numeric>
#include <unordered_set>

#include "attend/core/error.hpp"

namespace attend::graph {

namespace {
uint64_t pair_key(int64_t u, int64_t v) {
  const auto [a, b] = std::minmax(u, v);
  return (static_cast<uint64_t>(a) << 32) | static_cast<uint64_t>(b);
}
}  // namespace

MotifGraph MotifGraph::from_base(const EdgeList& base) {
  MotifGraph g;
  g.num_nodes = base.num_nodes;
  g.src = base.src;
  g.dst = base.dst;
  g.label.assign(base.num_nodes, 0);
  g.motif.assign(base.num_nodes, -1);
  g.is_motif_edge.assign(base.src.size(), false);
  return g;
}

std::vector<int64_t> random_base_nodes(int64_t count, int64_t base_nodes, Rng& rng) {
  ATTEND_CHECK(count >= 0 && count <= base_nodes, "random_base_nodes: " << count << " of " << base_nodes << " base nodes");
  std::vector<int64_t> candidates(static_cast<std::size_t>(base_nodes));
  std::iota(candidates.begin(), candidates.end(), int64_t{0});
  for (int64_t k = 0; k < count; ++k) {  // the first `count` steps of a Fisher-Yates shuffle
    const int64_t pick = k + static_cast<int64_t>(rng.below(static_cast<uint64_t>(base_nodes - k)));
    std::swap(candidates[k], candidates[pick]);
  }
  candidates.resize(static_cast<std::size_t>(count));
  return candidates;
}

std::vector<int64_t> evenly_spaced_base_nodes(int64_t count, int64_t base_nodes) {
  ATTEND_CHECK(count >= 1 && count <= base_nodes,
               "evenly_spaced_base_nodes: " << count << " of " << base_nodes << " base nodes");
  const int64_t spacing = base_nodes / count;  // the authors' math.floor(n_basis / n_shapes)
  std::vector<int64_t> nodes(static_cast<std::size_t>(count));
  for (int64_t k = 0; k < count; ++k) nodes[k] = k * spacing;
  return nodes;
}

void attach_motifs(MotifGraph& g, const NetworkMotif& motif, const std::vector<int64_t>& base_nodes) {
  for (const int64_t base : base_nodes) {
    ATTEND_CHECK(base >= 0 && base < g.num_nodes, "attach_motifs: base node " << base << " outside 0.." << g.num_nodes - 1);
    const int64_t first = g.num_nodes;
    const int64_t id = g.num_motifs++;
    g.num_nodes += motif.num_nodes;
    for (int64_t i = 0; i < motif.num_nodes; ++i) {
      g.label.push_back(1 + motif.roles[i]);
      g.motif.push_back(id);
    }
    for (const auto& [u, v] : motif.edges) {
      g.src.push_back(first + u);
      g.dst.push_back(first + v);
      g.is_motif_edge.push_back(true);
    }
    g.src.push_back(first + motif.anchor);
    g.dst.push_back(base);
    g.is_motif_edge.push_back(false);
  }
}

void add_second_joins(MotifGraph& g, const NetworkMotif& motif, int64_t first_copy, const std::vector<int64_t>& base_nodes,
                      Rng& rng) {
  constexpr int64_t kFarthest = 3;  // the authors' np.random.randint(1, 4)
  ATTEND_CHECK(motif.num_nodes > kFarthest, "add_second_joins: a motif of " << motif.num_nodes << " nodes");
  const auto copies = static_cast<int64_t>(base_nodes.size());
  ATTEND_CHECK(first_copy >= 0 && first_copy + copies * motif.num_nodes <= g.num_nodes,
               "add_second_joins: " << copies << " copies from node " << first_copy << " in " << g.num_nodes << " nodes");
  for (int64_t k = 0; k < copies; ++k) {
    ATTEND_CHECK(base_nodes[k] >= 0 && base_nodes[k] + kFarthest < first_copy,
                 "add_second_joins: base node " << base_nodes[k] << " + " << kFarthest << " is not a base node");
    if (rng.below(2) == 0) continue;  // the authors' np.random.random() > 0.5
    const auto a = 1 + static_cast<int64_t>(rng.below(kFarthest));
    const auto b = 1 + static_cast<int64_t>(rng.below(kFarthest));
    g.src.push_back(first_copy + k * motif.num_nodes + a);
    g.dst.push_back(base_nodes[k] + b);
    g.is_motif_edge.push_back(false);
  }
}

void add_noise_edges(MotifGraph& g, int64_t count, Rng& rng) {
  const int64_t n = g.num_nodes;
  ATTEND_CHECK(n < (int64_t{1} << 32), "add_noise_edges: too many nodes");
  std::unordered_set<uint64_t> joined;
  for (int64_t e = 0; e < g.num_edges(); ++e) joined.insert(pair_key(g.src[e], g.dst[e]));
  ATTEND_CHECK(count >= 0 && static_cast<int64_t>(joined.size()) + count <= n * (n - 1) / 2,
               "add_noise_edges: no room for " << count << " more edges among " << n << " nodes");
  for (int64_t k = 0; k < count; ++k) {
    int64_t u = 0, v = 0;
    do {
      u = static_cast<int64_t>(rng.below(static_cast<uint64_t>(n)));
      v = static_cast<int64_t>(rng.below(static_cast<uint64_t>(n)));
    } while (u == v || joined.count(pair_key(u, v)) > 0);
    joined.insert(pair_key(u, v));
    g.src.push_back(u);
    g.dst.push_back(v);
    g.is_motif_edge.push_back(false);
  }
}

}  // namespace attend::graph
