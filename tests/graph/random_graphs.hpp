#pragma once
/// Small random datasets for the graph layer tests.

#include <cstdint>
#include <string>

#include "attend/core/random.hpp"
#include "attend/graph/node_dataset.hpp"

namespace attend::testing {

/// An undirected multigraph with n nodes and `edges` random pairs (self-loops possible).
inline graph::NodeDataset random_dataset(int64_t n, int64_t edges, uint64_t seed) {
  graph::NodeDataset d;
  d.num_nodes = n;
  Rng rng(seed);
  for (int64_t e = 0; e < edges; ++e) {
    d.edge_src.push_back(static_cast<int64_t>(rng.below(n)));
    d.edge_dst.push_back(static_cast<int64_t>(rng.below(n)));
  }
  d.labels.assign(n, 0);
  d.num_classes = 1;
  return d;
}

/// A directed knowledge graph with `relations` relation types and random typed triples.
inline graph::NodeDataset random_typed_dataset(int64_t n, int64_t edges, int64_t relations, uint64_t seed) {
  graph::NodeDataset d = random_dataset(n, edges, seed);
  d.directed = true;
  Rng rng(seed + 1000);
  for (int64_t e = 0; e < edges; ++e) d.edge_type.push_back(static_cast<int64_t>(rng.below(relations)));
  for (int64_t r = 0; r < relations; ++r) d.relation_names.push_back("r" + std::to_string(r));
  return d;
}

}  // namespace attend::testing
