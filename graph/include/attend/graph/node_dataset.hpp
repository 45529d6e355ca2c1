#pragma once
/// NodeDataset: everything node classification needs, as read from any supported format.

#include <cstdint>
#include <string>
#include <vector>

#include "attend/core/sparse_matrix.hpp"

namespace attend::graph {

struct NodeDataset {
  std::string name;
  int64_t num_nodes = 0;
  SparseMatrix features;               ///< [N, F]; F == 0 for featureless knowledge graphs
  std::vector<int64_t> labels;         ///< [N], class id, -1 where unknown
  int64_t num_classes = 0;
  std::vector<int64_t> train, val, test;  ///< node ids of each split
  std::vector<int64_t> edge_src, edge_dst;  ///< edges as stored in the source (see `directed`)
  bool directed = false;               ///< false: each pair is listed once and means both ways
  std::vector<int64_t> edge_type;      ///< [E] relation id per edge; empty when untyped
  std::vector<float> edge_features;    ///< [E, D] row-major, by edge; empty when the edges have none
  int64_t edge_feature_dim = 0;        ///< D (0 when the edges have no features)
  std::vector<std::string> node_names;      ///< [N] (may be empty: names are the ids)
  std::vector<std::string> class_names;     ///< [C] (may be empty)
  std::vector<std::string> relation_names;  ///< [R] (may be empty)
  std::vector<std::string> warnings;  ///< non-fatal notes from the loader (skipped lines, ...)

  int64_t num_edges() const { return static_cast<int64_t>(edge_src.size()); }
  int64_t num_features() const { return features.cols(); }
  int64_t num_relations() const { return static_cast<int64_t>(relation_names.size()); }
  bool has_edge_features() const { return edge_feature_dim > 0; }
  /// The name of node `i` (its id as text when no names were given).
  std::string node_name(int64_t i) const;
  /// Check consistency (finite node and edge feature values, sizes, id ranges,
  /// labelled and disjoint splits); throws attend::InputError, whose message the readers
  /// prefix with the file they read.
  void validate() const;
};

/// Hold out a validation split from the training nodes, for datasets that have none (the
/// R-GCN benchmarks AIFB and MUTAG: Schlichtkrull et al. 2018 chose hyperparameters on 20 %
/// of the training entities). Moves round(fraction * |train|) training nodes, chosen by a
/// shuffle seeded with `seed` (attend::Rng, so the same nodes on every machine), into `val`
/// (sorted); `train` keeps the others in their order. At least one node stays on each side.
/// Throws attend::InputError when `d` already has a validation split, `fraction` is not in
/// (0, 1), or there are fewer than two training nodes.
void hold_out_validation(NodeDataset& d, double fraction, uint64_t seed);

/// Split the labelled nodes at random into train, validation and test (the 80 / 10 / 10 of
/// the GNNExplainer benchmarks): a Fisher-Yates shuffle seeded with `seed` (attend::Rng),
/// the first round(train_fraction * n) nodes to `train`, the next round(val_fraction * n) to
/// `val`, the rest to `test`, each sorted; existing splits are replaced. Throws
/// attend::InputError unless the fractions are >= 0 with a sum of at most 1.
void split_at_random(NodeDataset& d, double train_fraction, double val_fraction, uint64_t seed);

}  // namespace attend::graph
