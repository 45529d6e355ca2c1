#pragma once
/// MotifGraph: a base graph with planted motifs and random noise edges, the construction of
/// GNNExplainer's synthetic node-classification benchmarks (Ying et al., "GNNExplainer:
/// Generating Explanations for Graph Neural Networks", NeurIPS 2019, Sec. 5).

#include <cstdint>
#include <vector>

#include "attend/core/random.hpp"
#include "attend/graph/graph_algorithms.hpp"
#include "attend/graph/network_motif.hpp"

namespace attend::graph {

struct MotifGraph {
  int64_t num_nodes = 0;
  std::vector<int64_t> src, dst;    ///< [E] undirected edges, each once
  std::vector<int64_t> label;       ///< [N] 0 on the base graph, 1 + role on a motif node
  std::vector<int64_t> motif;       ///< [N] id of the planted motif (0, 1, ...), -1 on the base graph
  std::vector<bool> is_motif_edge;  ///< [E] the edge is one of a planted motif's own edges
  int64_t num_motifs = 0;

  int64_t num_edges() const { return static_cast<int64_t>(src.size()); }
  /// The base graph `base` (each undirected edge listed once): every node labelled 0.
  static MotifGraph from_base(const EdgeList& base);
};

/// Plant `count` copies of `motif` (Ying et al. 2019): copy k takes the next motif.num_nodes
/// node ids, gets motif id num_motifs + k and labels 1 + role, and its anchor is joined by
/// one edge (not a motif edge) to a base node; the base nodes are `count` distinct nodes of
/// 0..base_nodes-1 drawn uniformly from `rng`. Throws attend::Error when count > base_nodes.
void attach_motifs(MotifGraph& graph, const NetworkMotif& motif, int64_t count, int64_t base_nodes, Rng& rng);

/// Add `count` noise edges, each between two distinct nodes drawn uniformly from the whole
/// graph and redrawn while the pair is already joined (the perturbation of the GNNExplainer
/// authors' code). Throws attend::Error when the graph has no room for them.
void add_noise_edges(MotifGraph& graph, int64_t count, Rng& rng);

}  // namespace attend::graph
