// `attend node-classify`: train graph node classifiers (GAT and the other registered node
// layers) on a dataset folder, score a trained one on the dataset's splits, and apply it to
// predict every node's class.
#include <cmath>
#include <iomanip>
#include <memory>
#include <optional>
#include <sstream>

#include "attend/core/error.hpp"
#include "attend/core/hdf5_file.hpp"
#include "attend/core/io/read_progress.hpp"
#include "attend/core/json_writer.hpp"
#include "attend/core/ops/softmax.hpp"
#include "attend/core/output_transaction.hpp"
#include "attend/graph/graph_store.hpp"
#include "attend/graph/load_dataset.hpp"
#include "attend/graph/node_prediction_files.hpp"
#include "attend/graph/node_runs.hpp"
#include "attend/graph/node_training.hpp"
#include "attend/graph/trained_node_model.hpp"
#include "command_files.hpp"
#include "commands.hpp"
#include "node_data_options.hpp"
#include "option_checks.hpp"

namespace attend::cli {

namespace {

/// Sampled mini-batch training and the inference mode (the same options on train, evaluate
/// and predict; --batch-size on train only).
struct SamplingArgs {
  std::vector<int64_t> fanouts;
  int64_t batch_size = 512, inference_batch_size = 4096, shards = 1, max_batches = 0;
  bool replace = false, per_relation = false;
  std::string inference = "full";
};

/// Where the node features are read from (the same options on train, evaluate and predict).
struct FeatureArgs {
  bool out_of_core = false;
  double cache_mb = 256;
  NodeDataArgs data;  ///< --labels, --features (files of their own: an edge list), --split-fractions
  int64_t cache_bytes() const { return static_cast<int64_t>(cache_mb * 1024 * 1024); }
  /// Out of core the dataset is the graph file as it is: additions are refused.
  void check_out_of_core() const {
    if (out_of_core && data.any()) {
      throw InputError("--features-out-of-core reads the graph file as it is: give --labels, --features and "
                       "--split-fractions to attend convert instead");
    }
  }
};

struct TrainArgs {
  std::string data, model = "gat", save, json, plot;
  int runs = 1, epochs = -1, patience = -1;
  uint64_t seed = 0, validation_seed = 0;
  double validation_fraction = 0.0;
  bool quiet = false;
  SamplingArgs sampling;
  FeatureArgs features;
};

struct PredictArgs {
  std::string data, checkpoint, out, attention;
  SamplingArgs sampling;
  FeatureArgs features;
};

struct EvaluateArgs {
  std::string data, checkpoint, json;
  SamplingArgs sampling;
  FeatureArgs features;
};

void add_sampling_options(CLI::App* app, SamplingArgs& s, bool training) {
  app->add_option("--fanouts", s.fanouts,
                  training ? "Train on sampled mini-batches: neighbours sampled per node at each hop from the seeds, one "
                             "per message-passing layer (node_linear and batch_norm take none), -1 = all (e.g. "
                             "25,10); also the fan-outs of --inference sampled"
                           : "Fan-outs of --inference sampled, one per message-passing layer (node_linear and "
                             "batch_norm take none), -1 = all (e.g. 25,10)")
      ->delimiter(',')->check(fanout())->type_name("F1,F2,...");
  if (training) {
    app->add_option("--batch-size", s.batch_size, "Seed (training) nodes per mini-batch (with --fanouts)")
        ->check(at_least(1))->capture_default_str();
    app->add_option("--shards", s.shards,
                    "Fixed pieces of each mini-batch, run separately and summed in a fixed order; under mpirun -np K "
                    "(K <= shards) they are spread over the processes, and the same --shards gives the same model on "
                    "any number of processes")
        ->check(at_least(1))->capture_default_str();
    app->add_option("--max-batches", s.max_batches,
                    "Train on only the first N mini-batches of each epoch (numbered as in the whole epoch), 0 = all: "
                    "short benchmark runs on large graphs")
        ->check(at_least(0))->capture_default_str();
  }
  app->add_flag("--replace", s.replace, "Sample neighbours with replacement (exactly F per node, repeats allowed)");
  app->add_flag("--per-relation", s.per_relation,
                "Typed graphs (rgat, rgcn): each fan-out applies to every relation's in-edges separately, not to all "
                "of a node's in-edges together");
  app->add_option("--inference", s.inference,
                  std::string(training ? "How validation and test nodes are scored" : "How nodes are scored") +
                      ": full (whole graph at once), layerwise (exact, layer by layer in node batches), sampled "
                      "(the model on each batch's sampled neighbourhood, --fanouts)")
      ->capture_default_str()->type_name("full|layerwise|sampled");
  app->add_option("--inference-batch-size", s.inference_batch_size, "Nodes per batch of layerwise and sampled inference")
      ->check(at_least(1))->capture_default_str();
}

void add_feature_options(CLI::App* app, FeatureArgs& f, CommandFiles& files, bool training, bool scored) {
  add_node_data_options(app, f.data, files, scored);
  app->add_flag("--features-out-of-core", f.out_of_core,
                std::string("Leave the node features in the graph file (.h5 with dense features) and read each "
                            "batch's rows from it; needs ") +
                    (training ? "--fanouts and " : "") + "--inference layerwise|sampled");
  app->add_option("--feature-cache-mb", f.cache_mb, "With --features-out-of-core: MiB of feature rows kept in an LRU cache")
      ->check(at_least(0.0))
      ->capture_default_str();
}

/// The sampler options the command line gives (the seed is set by the caller).
graph::NeighborSamplerOptions sampler_options(const SamplingArgs& s) {
  graph::NeighborSamplerOptions o;
  o.fanouts = s.fanouts;
  o.replace = s.replace;
  o.per_relation = s.per_relation;
  return o;
}

/// The inference options; sampled inference without --fanouts is an InputError. Sampled
/// inference draws with seed 0 in every command, so train and evaluate score alike.
graph::InferenceOptions inference_options(const SamplingArgs& s) {
  graph::InferenceOptions o;
  o.mode = graph::inference_mode(s.inference);
  o.batch_size = s.inference_batch_size;
  o.sampler = sampler_options(s);
  if (o.mode == graph::InferenceMode::kSampled && s.fanouts.empty()) {
    throw InputError("--inference sampled needs --fanouts (one per message-passing layer, -1 = all)");
  }
  return o;
}

/// Mini-batch training when --fanouts is given; the sampling options without it are an InputError.
std::optional<graph::MiniBatchOptions> minibatch_options(const SamplingArgs& s, const CLI::App& train) {
  if (s.fanouts.empty()) {
    for (const char* option : {"--batch-size", "--shards", "--max-batches", "--replace", "--per-relation"}) {
      if (train.count(option) > 0) throw InputError(std::string(option) + " needs --fanouts (sampled mini-batch training)");
    }
    return std::nullopt;
  }
  graph::MiniBatchOptions o;
  o.sampler = sampler_options(s);
  o.batch_size = s.batch_size;
  o.shards = s.shards;
  o.max_batches = s.max_batches;
  return o;
}

std::string percent(double x) {
  if (std::isnan(x)) return "  -  ";
  std::ostringstream s;
  s << std::fixed << std::setprecision(1) << 100.0 * x;
  return s.str();
}

void print_warnings(const graph::NodeDataset& d, std::ostream& err) {
  for (const std::string& w : d.warnings) err << "attend: warning: " << w << '\n';
}

/// The runs of `train --runs N` (N > 1) as one table, with the mean and standard deviation.
void print_runs_table(const std::vector<graph::NodeRunResult>& results, const graph::RunStatistics& stats,
                      std::ostream& out) {
  out << "\n run   seed   val %   test %   epochs   best   seconds\n";
  for (std::size_t r = 0; r < results.size(); ++r) {
    const graph::NodeRunResult& x = results[r];
    out << std::right << std::setw(4) << r + 1 << std::setw(7) << x.seed << std::setw(8) << percent(x.val_acc)
        << std::setw(9) << percent(x.test_acc) << std::setw(9) << x.epochs << std::setw(7) << x.best_epoch + 1
        << std::setw(10) << std::fixed << std::setprecision(2) << x.seconds << "\n";
  }
  out << "mean" << std::setw(15) << percent(stats.val_mean) << std::setw(9) << percent(stats.test_mean) << "\n";
  out << "  sd" << std::setw(15) << percent(stats.val_sd) << std::setw(9) << percent(stats.test_sd) << "\n\n";
}

int run_train(const TrainArgs& a, const CLI::App& app, Context& ctx) {
  const std::optional<graph::MiniBatchOptions> minibatch = minibatch_options(a.sampling, app);
  const graph::InferenceOptions inference = inference_options(a.sampling);
  const graph::NodeModelSpec spec = graph::NodeModelSpec::load(a.model);
  // The checks, the held-out split and the summary line, whether the features are loaded or not.
  const auto prepare = [&](graph::NodeDataset& dataset, int64_t num_edges, int64_t num_features) {
    if (ctx.world.is_root()) print_warnings(dataset, ctx.err);  // every rank loads the same data
    if (dataset.train.empty()) throw InputError(a.data, 0, "the dataset has no training split (no labelled training nodes)");
    if (a.validation_fraction > 0.0) {
      // Hyperparameters are chosen on the held-out nodes; the test split stays unscored.
      graph::hold_out_validation(dataset, a.validation_fraction, a.validation_seed);
      dataset.test.clear();
      ctx.out << "validation: " << dataset.val.size() << " training nodes held out (seed " << a.validation_seed
              << "); the test split is not scored\n";
    }
    ctx.out << "dataset " << dataset.name << ": " << dataset.num_nodes << " nodes, " << num_edges
            << " edges, " << num_features << " features, " << dataset.num_classes << " classes; split "
            << dataset.train.size() << "/" << dataset.val.size() << "/" << dataset.test.size() << "\n";
  };
  graph::PreparedNodeData data;
  a.features.check_out_of_core();
  if (a.features.out_of_core) {
    graph::GraphStructure structure = graph::open_graph_out_of_core(a.data, a.features.cache_bytes(), spec.normalize_features);
    prepare(structure.dataset, structure.num_edges, structure.features->cols());
    data = graph::prepare_node_data_out_of_core(std::move(structure));
  } else {
    ProgressOptions reading;
    reading.mode = a.quiet ? ProgressMode::kSilent : ProgressMode::kAuto;
    reading.every = 64;  // plain mode: a line per 64 MiB read
    graph::NodeDataset dataset = [&] {
      const io::ReadProgress progress(reading);
      return graph::load_node_dataset(a.data, a.features.data.additions());
    }();
    prepare(dataset, dataset.num_edges(), dataset.num_features());
    data = graph::prepare_node_data(std::move(dataset), spec.normalize_features);
  }

  graph::NodeRunsOptions o;
  o.runs = a.runs;
  o.run.seed = a.seed;
  o.run.epochs = a.epochs;
  o.run.patience = a.patience;
  o.run.progress.mode = a.quiet ? ProgressMode::kSilent : ProgressMode::kAuto;
  o.run.progress.every = 50;
  o.run.save_path = a.save;
  o.run.minibatch = minibatch;
  o.run.inference = inference;
  o.run.communicator = &ctx.world;  // under mpirun: each batch's shards spread over the ranks
  o.json_path = a.json;
  o.plot_path = a.plot;
  o.validation_fraction = a.validation_fraction;
  o.validation_seed = a.validation_seed;
  const graph::NodeRunsResult runs =
      graph::train_node_runs(data, spec, ctx.registry, o, [&](int r, const graph::NodeRunResult& res) {
        ctx.out << "run " << r + 1 << "/" << a.runs << " seed " << res.seed << ": val " << percent(res.val_acc)
                << "  test " << percent(res.test_acc) << "  (" << res.epochs << " epochs, best " << res.best_epoch + 1
                << ", " << std::fixed << std::setprecision(2) << res.seconds << " s)\n";
      });
  const std::vector<graph::NodeRunResult>& results = runs.runs;
  const graph::RunStatistics& stats = runs.statistics;
  if (results.size() > 1) print_runs_table(results, stats, ctx.out);
  const std::string over = " % over " + std::to_string(results.size()) + (results.size() > 1 ? " runs\n" : " run\n");
  const std::string what = data.dataset.name + " / " + spec.name + ": ";
  if (!data.dataset.val.empty()) ctx.out << "validation accuracy " << what << percent(stats.val_mean) << " +- " << percent(stats.val_sd) << over;
  if (!data.dataset.test.empty()) ctx.out << "test accuracy " << what << percent(stats.test_mean) << " +- " << percent(stats.test_sd) << over;
  if (!a.save.empty()) ctx.out << "model saved to " << a.save << "\n";
  if (!a.plot.empty()) ctx.out << "training curves drawn in " << a.plot << "\n";
  return 0;
}

/// The model and dataset of `evaluate` and `predict` (the features in memory or left in the
/// file), the dataset's warnings printed. Out of core, full inference is refused first.
graph::TrainedNodeModel load_model_and_data(const std::string& data_path, const std::string& checkpoint,
                                            const FeatureArgs& features, const graph::InferenceOptions& inference,
                                            Context& ctx) {
  features.check_out_of_core();
  if (features.out_of_core && inference.mode == graph::InferenceMode::kFull) {
    throw InputError("--features-out-of-core needs --inference layerwise or sampled (full inference reads the whole "
                     "feature matrix)");
  }
  graph::TrainedNodeModel m =
      features.out_of_core
          ? graph::load_trained_node_model_out_of_core(data_path, checkpoint, ctx.registry, features.cache_bytes())
          : graph::load_trained_node_model(data_path, checkpoint, ctx.registry, features.data.additions());
  print_warnings(m.data.dataset, ctx.err);
  return m;
}

/// `inference` with sampled inference's fan-outs fitted to the loaded model (one per
/// message-passing layer; an old list of one per layer mapped, with a note printed).
graph::InferenceOptions fitted_to_model(graph::InferenceOptions inference, const graph::TrainedNodeModel& m,
                                        Context& ctx) {
  if (inference.mode != graph::InferenceMode::kSampled) return inference;
  try {
    graph::ModelFanouts fitted = graph::model_fanouts(*m.loaded.model, inference.sampler.fanouts);
    inference.sampler.fanouts = std::move(fitted.fanouts);
    if (!fitted.note.empty()) ctx.err << "attend: note: " << fitted.note << '\n';
  } catch (const InputError& e) {
    throw InputError(m.checkpoint, 0, e.what());
  }
  return inference;
}

int run_evaluate(const EvaluateArgs& a, Context& ctx) {
  graph::InferenceOptions inference = inference_options(a.sampling);
  graph::TrainedNodeModel m = load_model_and_data(a.data, a.checkpoint, a.features, inference, ctx);
  inference = fitted_to_model(std::move(inference), m, ctx);
  const std::vector<graph::SplitScore> scores =
      graph::score_splits(graph::class_logits(m, nullptr, inference), m.data.dataset);
  nlohmann::json splits = nlohmann::json::object();
  ctx.out << "split  nodes  accuracy %  loss\n";
  for (const graph::SplitScore& s : scores) {
    ctx.out << std::left << std::setw(5) << s.split << std::right << std::setw(7) << s.nodes << std::setw(12)
            << percent(s.accuracy) << "  " << std::fixed << std::setprecision(4) << s.loss << "\n";
    splits[s.split] = {{"nodes", s.nodes}, {"accuracy", s.accuracy}, {"loss", s.loss}};
  }
  if (!a.json.empty()) {
    write_json_file(a.json, {{"dataset", m.data.dataset.name}, {"checkpoint", a.checkpoint}, {"splits", splits},
                             {"inference", graph::inference_summary(inference)}});
  }
  return 0;
}

int run_predict(const PredictArgs& a, Context& ctx) {
  graph::InferenceOptions inference = inference_options(a.sampling);
  if (!a.attention.empty() && inference.mode != graph::InferenceMode::kFull) {
    throw InputError("--export-attention needs --inference full (the weights of the whole graph's edges)");
  }
  graph::TrainedNodeModel m = load_model_and_data(a.data, a.checkpoint, a.features, inference, ctx);
  inference = fitted_to_model(std::move(inference), m, ctx);
  std::vector<graph::AttentionExport> attention;
  const Tensor probs =
      ops::softmax(Var(graph::class_logits(m, a.attention.empty() ? nullptr : &attention, inference))).value();  // [N, C]
  const graph::PreparedNodeData& data = m.data;
  const graph::NodeDataset& d = data.dataset;
  OutputTransaction outputs;  // the predictions and the attention weights appear together
  graph::write_node_predictions(a.out, d, probs);
  if (!a.attention.empty()) graph::write_attention_weights(a.attention, data, attention);
  outputs.commit();
  ctx.out << "wrote " << d.num_nodes << " predictions to " << a.out << "\n";
  if (!d.test.empty()) ctx.out << "test accuracy " << percent(graph::accuracy(probs, d.labels, d.test)) << " %\n";
  if (!a.attention.empty()) ctx.out << "wrote attention weights to " << a.attention << "\n";
  return 0;
}

}  // namespace

Command add_node_classify_command(CLI::App& parent, Context& context) {
  CLI::App* app = parent.add_subcommand("node-classify", "Train graph node classifiers and predict with them");
  app->require_subcommand(1);

  auto t = std::make_shared<TrainArgs>();
  CLI::App* train = app->add_subcommand("train", "Train on a dataset folder; report validation and test accuracy");
  const std::shared_ptr<CommandFiles> train_files = CommandFiles::of(train);
  train_files->input(train->add_option("--data", t->data, "Dataset: folder (plain-text Planetoid, RDF + R-GCN split, LINQS, OGB, .npy files), .npz, edge list or graph .h5")
      ->required()->type_name("PATH"));
  train_files->input(train->add_option("--model", t->model, "Preset (" + [] {
    std::string names;
    for (const std::string& n : graph::preset_model_names()) names += (names.empty() ? "" : ", ") + n;
    return names;
  }() + ") or a model JSON file")->capture_default_str()->type_name("PRESET|FILE"));
  train->add_option("--runs", t->runs, "Train this many seeds (seed, seed+1, ...) and report mean +- sd")
      ->check(at_least(1))
      ->capture_default_str();
  train->add_option("--seed", t->seed, "First seed")->check(seed())->capture_default_str();
  train->add_option("--epochs", t->epochs, "Maximum epochs (default: the model's)")->check(at_least(1));
  train->add_option("--patience", t->patience, "Early-stopping patience, 0 = off (default: the model's)")->check(at_least(0));
  train->add_option("--validation-fraction", t->validation_fraction,
                    "Hold out this fraction of the training nodes as the validation split (datasets without one, "
                    "e.g. AIFB, MUTAG) and leave the test split unscored: for choosing hyperparameters")
      ->check(within(0.0, 1.0));
  train->add_option("--validation-seed", t->validation_seed, "Seed of the held-out choice")->check(seed())->capture_default_str();
  train_files->output(
      train->add_option("--save", t->save, "Write the first run's trained model (HDF5 checkpoint)")->type_name("FILE"));
  train_files->output(
      train->add_option("--json", t->json, "Write the results as JSON, with each run's per-epoch history")->type_name("FILE"));
  train_files->output(train->add_option("--plot", t->plot,
                                        "Draw the first run's training curves (loss and accuracy per epoch, training "
                                        "split blue, validation orange) as a PNG")
                          ->type_name("FILE"));
  train->add_flag("--quiet", t->quiet, "No progress line");
  add_sampling_options(train, t->sampling, true);
  add_feature_options(train, t->features, *train_files, true, true);

  auto p = std::make_shared<PredictArgs>();
  CLI::App* predict = app->add_subcommand("predict", "Predict every node's class with a trained model");
  const std::shared_ptr<CommandFiles> predict_files = CommandFiles::of(predict);
  predict_files->input(predict->add_option("--data", p->data, "Dataset (as train --data reads it)")->required()->type_name("PATH"));
  predict_files->input(
      predict->add_option("--checkpoint", p->checkpoint, "Model written by 'train --save'")->required()->type_name("FILE"));
  predict_files->output(predict->add_option("--out", p->out, "Predictions table with a header node, label, probability (.csv: CSV, else TSV)")
                            ->required()->type_name("FILE"));
  predict_files->output(
      predict->add_option("--export-attention", p->attention, "Also write per-layer, per-head attention weights (.tsv / .csv: a table, else HDF5)")
          ->type_name("FILE"));
  add_sampling_options(predict, p->sampling, false);
  add_feature_options(predict, p->features, *predict_files, false, false);

  auto e = std::make_shared<EvaluateArgs>();
  CLI::App* evaluate = app->add_subcommand("evaluate", "Accuracy and loss of a trained model on the dataset's splits");
  const std::shared_ptr<CommandFiles> evaluate_files = CommandFiles::of(evaluate);
  evaluate_files->input(evaluate->add_option("--data", e->data, "Dataset (as train --data reads it)")->required()->type_name("PATH"));
  evaluate_files->input(
      evaluate->add_option("--checkpoint", e->checkpoint, "Model written by 'train --save'")->required()->type_name("FILE"));
  evaluate_files->output(
      evaluate->add_option("--json", e->json, "Write {dataset, checkpoint, splits: {train|val|test: {nodes, accuracy, loss}}}")
          ->type_name("FILE"));
  add_sampling_options(evaluate, e->sampling, false);
  add_feature_options(evaluate, e->features, *evaluate_files, false, true);

  auto run = [&context, train, t, predict, p, e]() {
    if (train->parsed()) return run_train(*t, *train, context);
    return predict->parsed() ? run_predict(*p, context) : run_evaluate(*e, context);
  };
  return {app, run};
}

}  // namespace attend::cli
