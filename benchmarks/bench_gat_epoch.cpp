/// Benchmark of one full-batch training epoch of a node classifier (by default the GAT of
/// Velickovic et al. 2018 in benchmarks/models/gat-epoch.json: two GAT layers, dropout, Adam)
/// on a graph file, the epoch `attend node-classify train` runs without its per-epoch
/// evaluation: zero the gradients, forward in training mode (dropout on), cross-entropy over
/// the training split, backward, one optimizer step. Times the median of --repeats epochs after
/// one warm-up epoch. benchmarks/compare.py runs it beside PyTorch Geometric's GATConv
/// (benchmarks/reference_pyg.py); with --check it times nothing and instead writes the model and
/// its initial weights (--init-checkpoint, which the reference reads) and the two losses
/// compare.py checks the sides by: the evaluation-mode (no dropout) training loss of those
/// weights, and that loss after one optimizer step taken without dropout.
/// Prints one line and writes JSON to --json.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "attend/core/checkpoint.hpp"
#include "attend/core/heap.hpp"
#include "attend/core/measure.hpp"
#include "attend/core/openmp_waiting.hpp"
#include "attend/core/ops/loss.hpp"
#include "attend/core/optimizer.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/parameter_arena.hpp"
#include "attend/core/random.hpp"
#include "attend/core/registry.hpp"
#include "attend/core/training_checkpoint.hpp"
#include "attend/graph/builtin_layers.hpp"
#include "attend/graph/graph_store.hpp"
#include "attend/graph/node_classifier.hpp"
#include "attend/graph/node_model_spec.hpp"
#include "attend/graph/node_training.hpp"
#include "option_checks.hpp"

using namespace attend;
using namespace attend::graph;

namespace {

// `x` with each stored value kept with probability `share` (draw k of a fixed stream).
SparseMatrix thinned(const SparseMatrix& x, double share) {
  const CounterStream stream(0x5eed);
  std::vector<int64_t> rows, cols;
  std::vector<float> values;
  for (int64_t r = 0; r < x.rows(); ++r) {
    for (int64_t k = x.indptr()[r]; k < x.indptr()[r + 1]; ++k) {
      if (stream.at(static_cast<uint64_t>(k)) >= share) continue;
      rows.push_back(r);
      cols.push_back(x.indices()[k]);
      values.push_back(x.values()[k]);
    }
  }
  return SparseMatrix::from_triplets(x.rows(), x.cols(), rows, cols, values);
}

/// Median of `runs` (not empty).
double median(std::vector<double> runs) {
  std::sort(runs.begin(), runs.end());
  return runs[runs.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  bound_openmp_spinning(argv);  // as the attend program does: before anything else
  CLI::App app{"Benchmark one full-batch training epoch of a node classifier"};
  std::string data_path, model = "benchmarks/models/gat-epoch.json", checkpoint_path, json_path;
  uint64_t seed = 0;
  int repeats = 5, threads = 0;
  bool check = false;
  std::string form = "auto";
  double feature_share = 1.0;
  app.add_option("--data", data_path, "graph file (attend generate large-graph)")->required();
  app.add_option("--model", model, "model preset or JSON file (node-classify train --model)")->capture_default_str();
  app.add_option("--seed", seed, "seed of the initial weights and the dropout masks")->capture_default_str();
  app.add_option("--repeats", repeats, "timed epochs after one warm-up; the median is reported")
      ->check(attend::cli::at_least(1));
  app.add_option("--threads", threads, "thread count (default: OpenMP's)")->check(attend::cli::at_least(1));
  app.add_flag("--check", check,
               "time nothing: write --init-checkpoint and the check losses (a process of its own, so that the "
               "timed one's peak memory is the epochs' alone)");
  app.add_option("--init-checkpoint", checkpoint_path, "with --check: write the model and its initial weights here (HDF5)");
  app.add_option("--json", json_path, "write the results as JSON here");
  app.add_option("--features-form", form,
                 "auto: the form node-classify train holds the features in (input_features: dense from 25 % "
                 "non-zeros, else CSR); dense or csr: that form whatever the density (what each form costs)")
      ->check(CLI::IsMember({"auto", "dense", "csr"}))
      ->capture_default_str();
  app.add_option("--feature-share", feature_share,
                 "keep each feature value with this probability and zero the rest (a seeded draw) before the features' "
                 "form is chosen: the epoch at other densities, for the dense / CSR threshold")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (threads > 0) set_num_threads(threads);
  keep_freed_memory();  // as the attend program does

  Registry registry;
  register_graph_layers(registry);
  const NodeModelSpec spec = NodeModelSpec::load(model);
  NodeDataset dataset = load_node_dataset_h5(data_path);
  if (feature_share < 1.0) dataset.features = thinned(dataset.features, feature_share);
  // A copy for a form other than the one preparation picks: preparation keeps the values once.
  SparseMatrix raw_features = form == "auto" ? SparseMatrix() : dataset.features;  // [N, F]
  const PreparedNodeData data = prepare_node_data(std::move(dataset), spec.normalize_features);
  const NodeDataset& d = data.dataset;
  const auto in_form = [&]() -> NodeFeatures {  // [N, F]; raw_features normalised as prepare_node_data does
    if (form == "auto") return data.features;
    auto x = std::make_shared<SparseMatrix>(std::move(raw_features));
    if (spec.normalize_features) x->normalize_rows();
    if (form == "dense") return NodeFeatures(Var(x->to_dense()));
    return NodeFeatures(std::shared_ptr<const SparseMatrix>(std::move(x)));
  };
  const NodeFeatures features = in_form();  // [N, F]
  NodeClassifier classifier(resolve_model_config(spec, d, data.graph, seed, registry), registry);
  Json optimizer_config = spec.optimizer;
  const std::string optimizer_type = optimizer_config["type"].get<std::string>();
  optimizer_config.erase("type");
  const std::unique_ptr<Optimizer> optimizer = make_optimizer(optimizer_type, optimizer_config);
  ParameterArena arena(classifier.named_parameters());

  nlohmann::json parameters = nlohmann::json::object();
  for (const ArenaSlot& slot : arena.slots()) parameters[slot.name] = slot.shape;
  nlohmann::json out = {{"model", spec.name},
                        {"nodes", d.num_nodes},
                        {"train_nodes", d.train.size()},
                        {"threads", num_threads()},
                        {"features_form", form},
                        {"feature_share", feature_share},
                        {"dense_form", !features.is_sparse()},
                        {"parameter_count", arena.trainable_size()},
                        {"parameters", parameters}};
  if (check) {
    // The evaluation-mode (no dropout) training loss of the initial weights, and again after
    // one optimizer step taken without dropout.
    const auto eval_loss = [&] {
      NoGradGuard no_grad;
      classifier.eval();
      return static_cast<double>(
          ops::cross_entropy(classifier.forward(features, data.graph, seed), d.labels, d.train).value().item());
    };
    if (!checkpoint_path.empty()) save_checkpoint(checkpoint_path, capture_checkpoint(classifier, arena, nullptr, nullptr));
    const double initial_loss = eval_loss();
    arena.zero_grad();
    classifier.eval();
    ops::cross_entropy(classifier.forward(features, data.graph, seed), d.labels, d.train).backward();
    optimizer->step(arena);
    const double step_loss = eval_loss();
    std::printf("%s on %s (%lld nodes, %lld train): %lld parameters, initial loss %.6f, %.6f after a step without "
                "dropout\n",
                spec.name.c_str(), data_path.c_str(), static_cast<long long>(d.num_nodes),
                static_cast<long long>(d.train.size()), static_cast<long long>(arena.trainable_size()), initial_loss,
                step_loss);
    out["initial_loss"] = initial_loss;
    out["step_loss"] = step_loss;
  } else {
    // One epoch as train_node_classifier's full-batch step, less its evaluation.
    std::vector<double> seconds, cpu_seconds, losses;
    for (int epoch = 0; epoch <= repeats; ++epoch) {
      const auto start = std::chrono::steady_clock::now();
      const double cpu_start = process_cpu_seconds();
      arena.zero_grad();
      const double loss = full_batch_gradient(classifier, features, data, arena, spec.layer_weight_decay, seed, epoch);
      optimizer->step(arena);
      losses.push_back(loss);
      if (epoch == 0) continue;  // warm-up
      cpu_seconds.push_back(process_cpu_seconds() - cpu_start);
      seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    const double epoch_ms = 1e3 * median(seconds), cpu_ms = 1e3 * median(cpu_seconds);
    std::printf("%s on %s (%lld nodes, %lld train): %d threads, median of %d epochs: %.1f ms per epoch (CPU %.1f "
                "ms), peak RSS %.0f MiB\n",
                spec.name.c_str(), data_path.c_str(), static_cast<long long>(d.num_nodes),
                static_cast<long long>(d.train.size()), num_threads(), repeats, epoch_ms, cpu_ms, peak_rss_mib());
    out["epoch_ms"] = epoch_ms;
    out["epoch_cpu_ms"] = cpu_ms;
    out["seconds"] = seconds;
    out["losses"] = losses;
    out["peak_rss_mib"] = peak_rss_mib();
  }
  if (!json_path.empty()) std::ofstream(json_path) << out.dump(2) << "\n";
  return 0;
}
