#pragma once
/// `node-classify train --runs N`, as a library call: N training runs of one model on one
/// prepared dataset (seeds seed, seed + 1, ...), their files written run by run, and the
/// summary `--json` holds. The command line and the Python module call it alike.

#include <functional>
#include <string>
#include <vector>

#include "attend/core/options_json.hpp"
#include "attend/graph/node_training.hpp"

namespace attend::graph {

struct NodeRunsOptions {
  int runs = 1;
  /// Every run's options, the seed of the first run; save_path and checkpoint_out apply to the
  /// first run alone.
  NodeRunOptions run;
  /// The summary (node_runs_summary), rewritten after every run when not empty, so that an
  /// interrupted series keeps the runs it finished ("complete" turns true with the last).
  std::string json_path;
  /// The first run's training curves (training_curves.hpp) when not empty.
  std::string plot_path;
  /// Recorded in the summary when > 0: the caller held out this fraction of the training
  /// nodes as the validation split (hold_out_validation) with `validation_seed`.
  double validation_fraction = 0.0;
  uint64_t validation_seed = 0;
};

struct NodeRunsResult {
  std::vector<NodeRunResult> runs;  ///< [runs], in seed order
  RunStatistics statistics;         ///< of `runs`
};

/// Receives each run's index (0-based) and result once its files are written.
using NodeRunCallback = std::function<void(int run, const NodeRunResult& result)>;

/// Train `options.runs` models (train_node_classifier). Each run's files (the model with the
/// first, the summary so far, the curves with the first) appear together through one
/// OutputTransaction; under a communicator rank 0 alone writes them. Deterministic for the
/// seeds, whatever the thread count.
NodeRunsResult train_node_runs(const PreparedNodeData& data, const NodeModelSpec& spec, const Registry& registry,
                               const NodeRunsOptions& options, const NodeRunCallback& after_run = {});

/// The summary of `runs` (the first runs of options.runs): dataset, model, runs (seed,
/// val_acc, test_acc, epochs, seconds, per-epoch history), complete, the accuracies' means and
/// standard deviations (null for a split the dataset lacks), sampling (mini-batch training),
/// processes, inference, validation_fraction and validation_seed (when held out).
Json node_runs_summary(const std::string& dataset_name, const NodeModelSpec& spec, const NodeRunsOptions& options,
                       const std::vector<NodeRunResult>& runs);

/// How nodes are scored, as the summaries record it: mode, and batch_size, fanouts, replace
/// and per_relation where the mode uses them.
Json inference_summary(const InferenceOptions& options);

}  // namespace attend::graph
