#include "attend/graph/node_runs.hpp"

#include <cmath>

#include "attend/core/json_writer.hpp"
#include "attend/core/output_transaction.hpp"
#include "attend/graph/training_curves.hpp"

namespace attend::graph {

namespace {

Json number_or_null(double x) { return std::isnan(x) ? Json(nullptr) : Json(x); }

Json run_summary(const NodeRunResult& r) {
  Json history = Json::array();
  for (std::size_t epoch = 0; epoch < r.history.size(); ++epoch) {
    const NodeEpoch& h = r.history[epoch];
    history.push_back({{"epoch", epoch + 1}, {"train_loss", number_or_null(h.train_loss)},
                       {"train_acc", number_or_null(h.train_acc)}, {"val_loss", number_or_null(h.val_loss)},
                       {"val_acc", number_or_null(h.val_acc)}});
  }
  Json summary = {{"seed", r.seed}, {"val_acc", number_or_null(r.val_acc)}, {"test_acc", number_or_null(r.test_acc)},
                  {"epochs", r.epochs}, {"seconds", r.seconds}, {"history", std::move(history)}};
  if (r.batches > 0) {
    summary["batches"] = r.batches;
    summary["batch_seconds"] = r.batch_seconds;
  }
  return summary;
}

}  // namespace

NodeRunsResult train_node_runs(const PreparedNodeData& data, const NodeModelSpec& spec, const Registry& registry,
                               const NodeRunsOptions& options, const NodeRunCallback& after_run) {
  const Communicator& comm = options.run.communicator != nullptr ? *options.run.communicator : Communicator::self();
  NodeRunsResult result;
  for (int r = 0; r < options.runs; ++r) {
    OutputTransaction outputs;
    NodeRunOptions o = options.run;
    o.seed = options.run.seed + static_cast<uint64_t>(r);
    if (r > 0) {
      o.save_path.clear();
      o.checkpoint_out = nullptr;
    }
    result.runs.push_back(train_node_classifier(data, spec, registry, o));
    if (comm.is_root()) {  // rank 0 writes, as it saves the model
      if (!options.json_path.empty()) {
        write_json_file(options.json_path, node_runs_summary(data.dataset.name, spec, options, result.runs));
      }
      if (r == 0 && !options.plot_path.empty()) write_training_curves(options.plot_path, result.runs[0].history);
    }
    outputs.commit();
    if (after_run) after_run(r, result.runs.back());
  }
  result.statistics = run_statistics(result.runs);
  return result;
}

Json node_runs_summary(const std::string& dataset_name, const NodeModelSpec& spec, const NodeRunsOptions& options,
                       const std::vector<NodeRunResult>& runs) {
  const RunStatistics stats = run_statistics(runs);
  Json per_run = Json::array();
  for (const NodeRunResult& r : runs) per_run.push_back(run_summary(r));
  Json out = {{"dataset", dataset_name}, {"model", spec.name}, {"runs", std::move(per_run)},
              {"complete", static_cast<int>(runs.size()) == options.runs},
              {"val_acc_mean", number_or_null(stats.val_mean)}, {"val_acc_std", number_or_null(stats.val_sd)},
              {"test_acc_mean", number_or_null(stats.test_mean)}, {"test_acc_std", number_or_null(stats.test_sd)}};
  if (const std::optional<MiniBatchOptions>& mb = options.run.minibatch) {
    out["sampling"] = {{"fanouts", mb->sampler.fanouts}, {"batch_size", mb->batch_size}, {"shards", mb->shards},
                       {"replace", mb->sampler.replace}, {"per_relation", mb->sampler.per_relation}};
  }
  out["processes"] = options.run.communicator != nullptr ? options.run.communicator->size() : 1;
  out["inference"] = inference_summary(options.run.inference);
  if (options.validation_fraction > 0.0) {
    out["validation_fraction"] = options.validation_fraction;
    out["validation_seed"] = options.validation_seed;
  }
  return out;
}

Json inference_summary(const InferenceOptions& o) {
  Json j = {{"mode", inference_mode_name(o.mode)}};
  if (o.mode != InferenceMode::kFull) j["batch_size"] = o.batch_size;
  if (o.mode == InferenceMode::kSampled) {
    j["fanouts"] = o.sampler.fanouts;
    j["replace"] = o.sampler.replace;
    j["per_relation"] = o.sampler.per_relation;
  }
  return j;
}

}  // namespace attend::graph
