#pragma once
/// The explanations HDF5 file (schema `attend.explanations`, version 1; layout in
/// docs/hdf5-schema.md): what `attend explain node` computed for each target, read back by
/// `attend explain eval`.

#include <string>
#include <vector>

#include "attend/graph/explain/node_explanation.hpp"
#include "attend/graph/node_training.hpp"

namespace attend::graph {

struct ExplanationSet {
  std::string method;        ///< explain_method_names()
  int64_t steps = 0;         ///< integrated gradients' steps (0 for other methods)
  std::string rule;          ///< integrated gradients' quadrature_names(), "" for other methods
  std::string heads;         ///< "mean" / "max" for attention, "" otherwise
  bool symmetric = false;    ///< occlusion, shapley: both directions of an edge as one input
  int64_t samples = 0;       ///< shapley's permutations per node (0 for other methods)
  int64_t num_features = 0;  ///< F of the dataset
  std::vector<NodeExplanation> explanations;
};

/// Write `set` to `path` atomically (AtomicOutput: part of an open OutputTransaction).
/// `node_names` [N] are the dataset's names, stored beside the ids for readers.
void save_explanations(const std::string& path, const ExplanationSet& set, const std::vector<std::string>& node_names);

/// Read a file written by save_explanations; every inconsistency (sizes, offsets, negative
/// ids, an unknown method) is an attend::InputError naming the file.
ExplanationSet load_explanations(const std::string& path);

/// Checks that every node, edge (id and endpoints) and class of `set` exists in `data` and
/// that the feature count matches; attend::InputError naming `file` otherwise.
void check_explanations_fit(const ExplanationSet& set, const PreparedNodeData& data, const std::string& file);

}  // namespace attend::graph
