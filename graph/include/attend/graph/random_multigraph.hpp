#pragma once
/// A uniform random multigraph: the G(n, m) model of Erdos & Renyi ("On random graphs I",
/// 1959) drawn with replacement, the test and benchmark graph of attend.

#include <cstdint>

#include "attend/core/random.hpp"
#include "attend/graph/node_dataset.hpp"

namespace attend::graph {

struct RandomMultigraphSpec {
  int64_t num_nodes = 0;
  int64_t num_edges = 0;       ///< edges drawn (before GraphContext adds reverses or loops)
  int64_t num_relations = 0;   ///< > 0: each edge gets a relation drawn from r0..r{R-1}
  bool directed = false;
};

/// `num_edges` edges whose two endpoints are drawn uniformly and independently from
/// `num_nodes` nodes (self-loops and repeated pairs occur), then, when `num_relations` > 0,
/// one uniform relation per edge. Every node is unlabelled (label -1, no classes).
/// Deterministic for the state of `rng`. Throws attend::Error unless num_nodes > 0 (or no
/// edges are asked for) and the counts are not negative.
NodeDataset random_multigraph(const RandomMultigraphSpec& spec, Rng& rng);

}  // namespace attend::graph
