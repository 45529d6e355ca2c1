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

/// `count` distinct nodes of 0..base_nodes-1 drawn uniformly from `rng` (Ying et al. 2019,
/// Sec. 5: motifs attached to randomly selected nodes of the base graph), in draw order.
/// Throws attend::Error unless 0 <= count <= base_nodes.
std::vector<int64_t> random_base_nodes(int64_t count, int64_t base_nodes, Rng& rng);

/// Every spacing-th node from 0, spacing = floor(base_nodes / count): k * spacing for k <
/// count (the GNNExplainer authors' build_graph with rdm_basis_plugins=False, which built their
/// released data: Tree-Cycles' 60 cycles on nodes 0, 8, ..., 472 of the 511-node tree).
/// Throws attend::Error unless 1 <= count <= base_nodes.
std::vector<int64_t> evenly_spaced_base_nodes(int64_t count, int64_t base_nodes);

/// Plant one copy of `motif` per entry of `base_nodes` (Ying et al. 2019): copy k takes the
/// next motif.num_nodes node ids, gets motif id num_motifs + k and labels 1 + role, and its
/// anchor is joined by one edge (not a motif edge) to base_nodes[k], a node already in the
/// graph. Throws attend::Error for a base node outside the graph.
void attach_motifs(MotifGraph& graph, const NetworkMotif& motif, const std::vector<int64_t>& base_nodes);

/// The second edge the GNNExplainer authors' build_graph (utils/synthetic_structsim.py) adds
/// to a cycle: for each copy k of `motif` planted from node `first_copy` on (copy k holds
/// first_copy + k * motif.num_nodes ...), with probability 1/2 an edge (not a motif edge)
/// from its node a to node base_nodes[k] + b, a and b drawn uniformly from 1..3. Throws
/// attend::Error unless the motif has at least 4 nodes and every base_nodes[k] + 3 lies below
/// first_copy (a node of the base graph, so the edge is new).
void add_second_joins(MotifGraph& graph, const NetworkMotif& motif, int64_t first_copy,
                      const std::vector<int64_t>& base_nodes, Rng& rng);

/// Add `count` noise edges, each between two distinct nodes drawn uniformly from the whole
/// graph and redrawn while the pair is already joined (the perturbation of the GNNExplainer
/// authors' code). Throws attend::Error when the graph has no room for them.
void add_noise_edges(MotifGraph& graph, int64_t count, Rng& rng);

}  // namespace attend::graph
