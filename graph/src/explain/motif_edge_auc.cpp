#include "attend/graph/explain/motif_edge_auc.hpp"

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>

#include "attend/core/error.hpp"
#include "attend/graph/explain/roc_auc.hpp"

namespace attend::graph {

namespace {

// Key of the ordered pair (a, b) of nodes 0..n-1.
int64_t pair_key(int64_t a, int64_t b, int64_t n) { return a * n + b; }

// The motif edges as keys of their (smaller, larger) pairs.
std::unordered_set<int64_t> motif_pairs(const MotifGroundTruth& truth) {
  std::unordered_set<int64_t> motif;
  for (int64_t e = 0; e < truth.num_edges(); ++e) {
    const auto [a, b] = std::minmax(truth.edge_src[e], truth.edge_dst[e]);
    motif.insert(pair_key(a, b, truth.num_nodes()));
  }
  return motif;
}

// Undirected adjacency of `graph`: each node's distinct neighbours, no self-loops.
std::vector<std::vector<int64_t>> undirected_neighbours(const NodeDataset& graph) {
  std::vector<std::vector<int64_t>> adj(static_cast<std::size_t>(graph.num_nodes));
  for (int64_t e = 0; e < graph.num_edges(); ++e) {
    const int64_t a = graph.edge_src[e], b = graph.edge_dst[e];
    if (a == b) continue;
    adj[a].push_back(b);
    adj[b].push_back(a);
  }
  for (std::vector<int64_t>& list : adj) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  return adj;
}

// Nodes within `hops` edges of `source` (breadth-first); `seen` [N] is all false on entry
// and on return.
std::vector<int64_t> neighbourhood(const std::vector<std::vector<int64_t>>& adj, int64_t source, int hops,
                                   std::vector<char>& seen) {
  std::vector<int64_t> nodes{source};
  seen[source] = 1;
  std::size_t ring_begin = 0;
  for (int h = 0; h < hops; ++h) {
    const std::size_t ring_end = nodes.size();
    for (std::size_t k = ring_begin; k < ring_end; ++k) {
      for (int64_t w : adj[nodes[k]]) {
        if (seen[w]) continue;
        seen[w] = 1;
        nodes.push_back(w);
      }
    }
    ring_begin = ring_end;
  }
  for (int64_t v : nodes) seen[v] = 0;
  return nodes;
}

}  // namespace

std::vector<std::string> motif_auc_protocol_names() { return {"explained-edges", "khop-undirected"}; }

MotifAucProtocol parse_motif_auc_protocol(const std::string& name) {
  if (name == "explained-edges") return MotifAucProtocol::kExplainedEdges;
  if (name == "khop-undirected") return MotifAucProtocol::kKhopUndirected;
  throw InputError("unknown AUC protocol '" + name + "' (expected explained-edges or khop-undirected)");
}

double explained_edge_auc(const ExplanationSet& set, const MotifGroundTruth& truth) {
  const std::unordered_set<int64_t> motif = motif_pairs(truth);
  std::vector<float> scores;
  std::vector<bool> positive;
  for (const NodeExplanation& x : set.explanations) {
    for (std::size_t e = 0; e < x.edge_score.size(); ++e) {
      const auto [a, b] = std::minmax(x.edge_src[e], x.edge_dst[e]);
      scores.push_back(x.edge_score[e]);
      positive.push_back(motif.count(pair_key(a, b, truth.num_nodes())) > 0);
    }
  }
  return roc_auc(scores, positive);
}

double khop_undirected_auc(const ExplanationSet& set, const MotifGroundTruth& truth, const NodeDataset& graph, int hops) {
  ATTEND_CHECK(hops >= 1, "a neighbourhood of " << hops << " hops");
  ATTEND_CHECK(truth.num_nodes() == graph.num_nodes,
               "a ground truth of " << truth.num_nodes() << " nodes for a graph of " << graph.num_nodes);
  const int64_t n = graph.num_nodes;
  const std::unordered_set<int64_t> motif = motif_pairs(truth);
  const std::vector<std::vector<int64_t>> adj = undirected_neighbours(graph);
  std::vector<char> seen(static_cast<std::size_t>(n), 0), inside(static_cast<std::size_t>(n), 0);
  std::vector<float> scores;
  std::vector<bool> positive;
  for (const NodeExplanation& x : set.explanations) {
    if (x.edge_score.empty()) continue;  // a feature-only explanation scores no edge
    std::unordered_map<int64_t, float> directed;  // score of each explained (src, dst), repeats summed
    for (std::size_t e = 0; e < x.edge_score.size(); ++e) directed[pair_key(x.edge_src[e], x.edge_dst[e], n)] += x.edge_score[e];
    auto score = [&](int64_t from, int64_t to) {
      const auto found = directed.find(pair_key(from, to, n));
      return found == directed.end() ? 0.0f : found->second;
    };
    const std::vector<int64_t> nodes = neighbourhood(adj, x.node, hops, seen);
    for (int64_t v : nodes) inside[v] = 1;
    for (int64_t a : nodes) {
      for (int64_t b : adj[a]) {
        if (b <= a || !inside[b]) continue;  // each undirected pair once, both ends inside
        scores.push_back(score(a, b) + score(b, a));
        positive.push_back(motif.count(pair_key(a, b, n)) > 0);
      }
    }
    for (int64_t v : nodes) inside[v] = 0;
  }
  return roc_auc(scores, positive);
}

double motif_edge_auc(const ExplanationSet& set, const MotifGroundTruth& truth, const NodeDataset& graph,
                      MotifAucProtocol protocol, int hops) {
  switch (protocol) {
    case MotifAucProtocol::kExplainedEdges: return explained_edge_auc(set, truth);
    case MotifAucProtocol::kKhopUndirected: return khop_undirected_auc(set, truth, graph, hops);
  }
  throw Error("motif_edge_auc: unknown protocol");
}

}  // namespace attend::graph
