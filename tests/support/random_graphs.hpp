#pragma once
/// Small random datasets for the graph and plugin layer tests (graph::random_multigraph), every node
/// labelled 0 of one class.

#include <cstdint>

#include "attend/core/random.hpp"
#include "attend/graph/node_dataset.hpp"
#include "attend/graph/random_multigraph.hpp"

namespace attend::testing {

/// An undirected multigraph with n nodes and `edges` random pairs (self-loops possible).
inline graph::NodeDataset random_dataset(int64_t n, int64_t edges, uint64_t seed) {
  Rng rng(seed);
  graph::NodeDataset d = graph::random_multigraph({.num_nodes = n, .num_edges = edges}, rng);
  d.labels.assign(n, 0);
  d.num_classes = 1;
  return d;
}

/// A directed knowledge graph with `relations` relation types and random typed triples.
inline graph::NodeDataset random_typed_dataset(int64_t n, int64_t edges, int64_t relations, uint64_t seed) {
  Rng rng(seed);
  graph::NodeDataset d = graph::random_multigraph(
      {.num_nodes = n, .num_edges = edges, .num_relations = relations, .directed = true}, rng);
  d.labels.assign(n, 0);
  d.num_classes = 1;
  return d;
}

}  // namespace attend::testing
