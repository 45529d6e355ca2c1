#pragma once
/// The Barabasi-Albert random graph (Barabasi & Albert, "Emergence of scaling in random
/// networks", Science 1999): growth by preferential attachment.

#include <cstdint>

#include "attend/core/random.hpp"
#include "attend/graph/graph_algorithms.hpp"

namespace attend::graph {

/// A Barabasi-Albert graph on `num_nodes` nodes: nodes 0..m form a star (hub 0), then each
/// new node v = m + 1, ... joins m distinct earlier nodes, each drawn with probability
/// proportional to its degree (uniformly from the list of edge endpoints, redrawn on a
/// repeat). m (n - m) undirected edges, each listed once as (new node, earlier node), in
/// the order they were made. Deterministic for the state of `rng`.
/// Throws attend::Error unless 1 <= edges_per_node < num_nodes.
EdgeList barabasi_albert_graph(int64_t num_nodes, int64_t edges_per_node, Rng& rng);

}  // namespace attend::graph
