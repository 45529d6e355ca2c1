#pragma once
/// The options that add to a graph dataset as it is loaded, shared by `convert --graph` and
/// `node-classify train | evaluate | predict`: --labels FILE and --features FILE (files of
/// their own, for an edge list that holds only the graph) and, where splits are scored,
/// --split-fractions TRAIN,VAL with --split-seed. graph::add_to_dataset applies them.

#include <cstdint>
#include <vector>

#include <CLI/CLI.hpp>

#include "attend/graph/load_dataset.hpp"
#include "command_files.hpp"

namespace attend::cli {

struct NodeDataArgs {
  graph::NodeAttributeFiles attributes;
  std::vector<double> split_fractions;  ///< empty, or (train, val)
  uint64_t split_seed = 0;

  /// What graph::load_node_dataset adds: the files, and the split when fractions were given.
  graph::DatasetAdditions additions() const;
  /// Whether any option names something to add.
  bool any() const { return !attributes.labels.empty() || !attributes.features.empty() || !split_fractions.empty(); }
};

/// Add --labels and --features (inputs of `files`) to `app`, and --split-fractions and
/// --split-seed when `with_split`, filling `args`.
void add_node_data_options(CLI::App* app, NodeDataArgs& args, CommandFiles& files, bool with_split);

}  // namespace attend::cli
