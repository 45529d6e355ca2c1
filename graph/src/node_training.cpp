#include "attend/graph/node_training.hpp"

#include <chrono>
#include <cmath>
#include <iostream>
#include <mutex>
#include <numeric>
#include <optional>
#include <tuple>
#include <utility>

#include "attend/core/error.hpp"
#include "attend/core/ops/loss.hpp"
#include "attend/core/ops/softmax.hpp"
#include "attend/core/optimizer.hpp"
#include "attend/core/parameter_arena.hpp"
#include "attend/core/quoted_input.hpp"
#include "attend/core/random.hpp"
#include "attend/core/registry.hpp"
#include "attend/core/trainer.hpp"
#include "attend/core/training_checkpoint.hpp"

namespace attend::graph {

namespace {
// An InputError that names no file came from the model's settings: name the model file
// (spec.name: the file, or the preset).
[[noreturn]] void rethrow_naming_model(const InputError& e, const NodeModelSpec& spec) {
  if (!e.file().empty()) throw e;
  throw InputError(spec.name, 0, e.what());
}

// L2 on single layers (Schlichtkrull et al. 2018 regularise only the first R-GCN layer):
// gradient += decay * value for every trained parameter under `layers.<i>.`, coupled like Adam's
// weight_decay. Element-wise, so the same bits for any thread count.
void add_layer_weight_decay(ParameterArena& arena, const std::vector<double>& decay) {
  std::span<const float> values = arena.values();
  std::span<float> grads = arena.grads();
  for (std::size_t i = 0; i < decay.size(); ++i) {
    if (decay[i] == 0.0) continue;
    const std::string prefix = "layers." + std::to_string(i) + ".";
    const auto d = static_cast<float>(decay[i]);
    for (const ArenaSlot& slot : arena.slots()) {
      if (slot.name.rfind(prefix, 0) != 0 || !slot.var.requires_grad()) continue;  // not running statistics
      for (int64_t k = slot.offset; k < slot.offset + slot.numel(); ++k) grads[k] += d * values[k];
    }
  }
}
}  // namespace

PreparedNodeData prepare_node_data(NodeDataset dataset, bool normalize_features) {
  PreparedNodeData d;
  d.graph = GraphContext::from_dataset(dataset);
  if (dataset.num_features() == 0) {
    d.features = NodeFeatures(identity_features(dataset.num_nodes));
  } else {
    // The values move into `features` (held once: a dense [N, F] no longer keeps its CSR
    // copy); dataset.features keeps the shape.
    const int64_t width = dataset.num_features();
    auto features = std::make_shared<SparseMatrix>(std::move(dataset.features));
    if (normalize_features) features->normalize_rows();
    d.features = input_features(std::move(features));
    dataset.features = SparseMatrix::from_triplets(dataset.num_nodes, width, {}, {}, {});
  }
  d.dataset = std::move(dataset);
  return d;
}

PreparedNodeData prepare_node_data_out_of_core(GraphStructure structure, BatchRows form) {
  PreparedNodeData d;
  d.graph = structure.graph ? std::move(*structure.graph) : GraphContext::from_dataset(structure.dataset);
  const int64_t n = structure.dataset.num_nodes;
  if (structure.features->cols() > 0) {
    structure.dataset.features = SparseMatrix::from_triplets(n, structure.features->cols(), {}, {}, {});
  }
  d.dataset = std::move(structure.dataset);
  auto rows = std::shared_ptr<FeatureRows>(std::move(structure.features));
  auto lock = std::make_shared<std::mutex>();
  d.feature_rows = [rows, lock, form](const std::vector<int64_t>& ids) {
    const std::lock_guard<std::mutex> hold(*lock);
    return form == BatchRows::kInMemoryForm ? input_features(gather_sparse_node_features(*rows, ids).sparse)
                                            : gather_node_features(*rows, ids);
  };
  return d;
}

double accuracy(const Tensor& logits, const std::vector<int64_t>& labels,
                const std::vector<int64_t>& rows) {
  if (rows.empty()) return NAN;
  const int64_t c = logits.dim(1);
  int64_t correct = 0;
  for (int64_t r : rows) {
    const float* row = logits.data() + r * c;
    int64_t best = 0;
    for (int64_t k = 1; k < c; ++k) best = row[k] > row[best] ? k : best;
    correct += best == labels[static_cast<std::size_t>(r)];
  }
  return static_cast<double>(correct) / static_cast<double>(rows.size());
}

double full_batch_gradient(NodeClassifier& model, const NodeFeatures& x, const PreparedNodeData& data,
                           ParameterArena& arena, const std::vector<double>& layer_weight_decay, uint64_t seed,
                           int epoch) {
  model.train();
  Var logits = model.forward(x, data.graph, mix64(seed ^ (0x9e37ULL * (epoch + 1))));  // [N, C]
  Var loss = ops::cross_entropy(logits, data.dataset.labels, data.dataset.train);
  loss.backward();
  add_layer_weight_decay(arena, layer_weight_decay);
  return static_cast<double>(loss.value().item());
}

NodeRunResult train_node_classifier(const PreparedNodeData& data, const NodeModelSpec& spec,
                                    const Registry& registry, const NodeRunOptions& options) {
  const NodeDataset& d = data.dataset;
  if (d.train.empty()) throw InputError(d.name + ": the dataset has no training split");
  InferenceOptions inference = options.inference;
  if (data.feature_rows) {
    if (!options.minibatch || inference.mode == InferenceMode::kFull) {
      throw InputError(d.name + ": features out of core need sampled mini-batch training (--fanouts) and layer-wise "
                                "or sampled inference (--inference layerwise|sampled)");
    }
    if (!inference.feature_rows) inference.feature_rows = data.feature_rows;
  }
  // A bad option of a layer, the activation or the optimizer is an error in the model file.
  std::optional<NodeClassifier> model;
  std::unique_ptr<Optimizer> optimizer;
  try {
    model.emplace(resolve_model_config(spec, d, data.graph, options.seed, registry), registry);
    Json optimizer_config = spec.optimizer;
    const std::string optimizer_type = optimizer_config["type"].get<std::string>();
    optimizer_config.erase("type");
    optimizer = make_optimizer(optimizer_type, optimizer_config);
  } catch (const InputError& e) {
    rethrow_naming_model(e, spec);
  }
  ParameterArena arena(model->named_parameters());
  // The fan-outs, one per message-passing hop (an old list of one per layer is mapped, noted).
  std::optional<MiniBatchOptions> minibatch = options.minibatch;
  std::vector<std::string> notes;
  const auto fit_fanouts = [&](std::vector<int64_t>& fanouts) {
    try {
      ModelFanouts fitted = model_fanouts(*model, fanouts);
      fanouts = std::move(fitted.fanouts);
      if (!fitted.note.empty() && (notes.empty() || notes.back() != fitted.note)) notes.push_back(fitted.note);
    } catch (const InputError& e) {
      throw InputError(std::string(e.what()) + " (dataset " + d.name + ", model " + spec.name + ")");
    }
  };
  if (minibatch) fit_fanouts(minibatch->sampler.fanouts);
  if (inference.mode == InferenceMode::kSampled) fit_fanouts(inference.sampler.fanouts);

  TrainerOptions to;
  to.max_epochs = options.epochs > 0 ? options.epochs : spec.epochs;
  to.patience = options.patience >= 0 ? options.patience : spec.patience;
  to.rule = stopping_rule(spec.stopping);
  to.clip_grad_norm = spec.clip_grad_norm;
  // Without a validation split or without early stopping (the R-GCN benchmark: a fixed
  // number of epochs) the model of the last epoch is kept: choosing an epoch by training loss
  // would be a protocol of our own, and a validation split held out of the training set
  // (hold_out_validation) must score the model that the full training set would give.
  to.restore_best = !d.val.empty() && to.patience > 0;
  to.metric_name = d.val.empty() ? "train_acc" : "val_acc";
  to.progress = options.progress;
  const Communicator& comm = options.communicator != nullptr ? *options.communicator : Communicator::self();
  if (comm.size() > 1 && !options.minibatch) {
    throw InputError("training on " + std::to_string(comm.size()) +
                     " processes spreads mini-batches over them: it needs sampled mini-batch training (--fanouts)");
  }
  if (comm.size() > 1 && arena.trainable_size() < arena.size()) {
    throw InputError("training on " + std::to_string(comm.size()) +
                     " processes: the model keeps running statistics (batch_norm), which each process would compute from "
                     "its own shards; train it on one process");
  }
  if (options.minibatch && options.minibatch->shards < comm.size()) {
    throw InputError("training on " + std::to_string(comm.size()) + " processes needs at least as many shards per batch, got " +
                     std::to_string(options.minibatch->shards) + " (--shards)");
  }
  if (!comm.is_root()) to.progress.mode = ProgressMode::kSilent;
  if (to.progress.mode != ProgressMode::kSilent) {
    for (const std::string& note : notes) (to.progress.out ? *to.progress.out : std::cerr) << "attend: note: " << note << '\n';
  }
  Trainer trainer(arena, *optimizer, to);

  const std::vector<int64_t>& val_rows = d.val.empty() ? d.train : d.val;
  // The labels of `rows`, in that order: infer_node_logits returns those rows only.
  const auto labels_of = [&](const std::vector<int64_t>& rows) {
    std::vector<int64_t> labels;
    for (int64_t r : rows) labels.push_back(d.labels[r]);
    return labels;
  };
  // One inference per epoch scores the validation rows and, after them, the training rows
  // (their accuracy goes into the history); without a validation split they are the same rows.
  // Full and layer-wise inference compute every node's hidden layers anyway, so the training
  // rows cost at most one more output layer; sampled inference would run the whole model on
  // the (usually far larger) training split every epoch, so there the history has no
  // training accuracy.
  const bool score_train = d.val.empty() || inference.mode != InferenceMode::kSampled;
  std::vector<int64_t> eval_rows = val_rows;
  if (score_train && !d.val.empty()) eval_rows.insert(eval_rows.end(), d.train.begin(), d.train.end());
  const std::vector<int64_t> eval_labels = labels_of(eval_rows);
  std::vector<int64_t> val_positions(val_rows.size()), train_positions(score_train ? d.train.size() : 0);
  std::iota(val_positions.begin(), val_positions.end(), int64_t{0});
  std::iota(train_positions.begin(), train_positions.end(), static_cast<int64_t>(eval_rows.size() - train_positions.size()));
  const auto evaluate = [&] {
    const Tensor logits = infer_node_logits(*model, data.graph, data.features, eval_rows, inference, comm);  // [rows, C]
    const double loss = ops::cross_entropy(Var(logits), eval_labels, val_positions).value().item();
    EvalMetrics metrics{loss, accuracy(logits, eval_labels, val_positions), {}};
    if (score_train) metrics.extras = {{"train_acc", accuracy(logits, eval_labels, train_positions)}};
    return metrics;
  };
  TrainResult fit;
  int64_t batches_run = 0;     // mini-batch steps
  double batch_seconds = 0.0;  // their wall time (NodeRunResult::batch_seconds)
  // A diverging loss (too high a learning rate) is an error in the model file; a model that
  // does not fit the data (edge_dim on a graph without edge features) names the dataset too.
  try {
    check_inference_fits(*model, inference);
    if (!options.minibatch) {
      fit = trainer.fit(
          [&](int epoch) {
            return full_batch_gradient(*model, data.features, data, arena, spec.layer_weight_decay, options.seed, epoch);
          },
          evaluate);
    } else {
      const MiniBatchOptions& mb = *minibatch;
      check_fanouts_fit(*model, mb.sampler.fanouts);
      const MiniBatchKeys keys = minibatch_keys(options.seed);
      const NodeFeatureRows rows =
          mb.feature_rows ? mb.feature_rows : data.feature_rows ? data.feature_rows : in_memory_rows(data.features);
      std::vector<std::vector<int64_t>> batches;  // the current epoch's
      uint64_t epoch_size = 0;                    // batches in a whole epoch (max_batches may run fewer)
      int batches_epoch = -1;
      fit = trainer.fit_batches(
          [&](int epoch) {
            batches = epoch_batches(d.train, mb.batch_size, keys, epoch);
            epoch_size = batches.size();
            if (mb.max_batches > 0 && static_cast<int64_t>(batches.size()) > mb.max_batches) batches.resize(mb.max_batches);
            batches_epoch = epoch;
            return static_cast<int64_t>(batches.size());
          },
          [&](int epoch, int64_t b) {
            ATTEND_CHECK(epoch == batches_epoch, "batches of epoch " << batches_epoch << " asked for epoch " << epoch);
            model->train();
            const auto number = static_cast<uint64_t>(epoch) * epoch_size + static_cast<uint64_t>(b);
            const auto start = std::chrono::steady_clock::now();
            const double loss =
                minibatch_gradient(*model, arena, comm, data.graph, d.labels, rows, mb, keys, batches[b], number);
            batch_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            ++batches_run;
            add_layer_weight_decay(arena, spec.layer_weight_decay);
            return loss;
          },
          evaluate);
    }
  } catch (const InputError& e) {
    rethrow_naming_model(e.file().empty() ? InputError(std::string(e.what()) + " (dataset " + d.name + ")") : e, spec);
  }

  NodeRunResult result;
  result.seed = options.seed;
  result.epochs = fit.epochs_run;
  result.best_epoch = to.restore_best ? fit.best_epoch : fit.epochs_run - 1;
  result.seconds = fit.seconds;
  result.batches = batches_run;
  result.batch_seconds = batch_seconds;
  for (const EpochRecord& r : fit.history) {
    const bool val = !d.val.empty();
    const double train_acc = r.eval.extras.empty() ? NAN : r.eval.extras.front().second;
    result.history.push_back({r.train_loss, train_acc, val ? r.eval.val_loss : NAN, val ? r.eval.val_metric : NAN});
  }
  {
    NoGradGuard no_grad;
    const auto score = [&](const std::vector<int64_t>& rows) {
      if (rows.empty()) return static_cast<double>(NAN);
      const std::vector<int64_t> labels = labels_of(rows);
      std::vector<int64_t> positions(rows.size());
      std::iota(positions.begin(), positions.end(), int64_t{0});
      return accuracy(infer_node_logits(*model, data.graph, data.features, rows, inference, comm), labels, positions);
    };
    if (!d.val.empty()) result.val_acc = score(d.val);
    result.test_acc = score(d.test);
  }
  if (!options.save_path.empty() || options.checkpoint_out != nullptr) {
    CheckpointData checkpoint = capture_checkpoint(*model, arena, optimizer.get(), &trainer.state());
    checkpoint.model["preprocess"] = {{"normalize_features", spec.normalize_features}};
    if (minibatch) {
      const MiniBatchOptions& mb = *minibatch;
      checkpoint.model["training"] = {{"sampled", true},          {"fanouts", mb.sampler.fanouts},
                                      {"batch_size", mb.batch_size}, {"shards", mb.shards},
                                      {"replace", mb.sampler.replace}, {"per_relation", mb.sampler.per_relation}};
    }
    if (!options.save_path.empty() && comm.is_root()) save_checkpoint(options.save_path, checkpoint);
    if (options.checkpoint_out != nullptr) *options.checkpoint_out = std::move(checkpoint);
  }
  return result;
}

LoadedNodeModel load_node_model(const std::string& path, const Registry& registry) {
  return node_model_from_checkpoint(load_checkpoint(path), registry, path);
}

LoadedNodeModel node_model_from_checkpoint(const CheckpointData& data, const Registry& registry,
                                           const std::string& path) {
  LoadedNodeModel loaded;
  try {  // a bad stored config or parameter list is an error in the checkpoint: name it
    std::unique_ptr<Module> module = module_from_checkpoint(data, registry);
    auto* classifier = dynamic_cast<NodeClassifier*>(module.get());
    if (classifier == nullptr) throw InputError(path, 0, "the checkpoint holds a " + quoted_input(module->type_name()) + ", not a node classifier");
    module.release();
    loaded.model.reset(classifier);
    ParameterArena arena(loaded.model->named_parameters());
    load_parameters(data, arena);  // the arena's values go back to the parameters when it is destroyed
    if (data.model.contains("preprocess")) loaded.normalize_features = data.model["preprocess"].value("normalize_features", true);
  } catch (const InputError& e) {
    if (!e.file().empty()) throw;
    throw InputError(path, 0, e.what());
  }
  return loaded;
}

Tensor predict_logits(NodeClassifier& model, const PreparedNodeData& data,
                      std::vector<AttentionExport>* attention, const InferenceOptions& inference) {
  // A model applies only to data shaped like its training data: check before the layers do.
  const Json config = model.config();
  const Json& layers = config.at("layers");
  const NodeDataset& d = data.dataset;
  // The input width: F, or N for a featureless graph's identity (out of core `features` is empty).
  const bool in_memory = data.features.is_sparse() || data.features.dense.defined();
  const int64_t width = in_memory ? data.features.cols() : d.num_features() > 0 ? d.num_features() : d.num_nodes;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const Json& c = layers[i].at("config");
    if (i == 0 && c.contains("in_channels") && c["in_channels"].get<int64_t>() != width) {
      throw InputError("the model reads " + c["in_channels"].dump() + " input features per node (" +
                       "the node count, for featureless graphs), the dataset has " + std::to_string(width));
    }
    if (c.contains("num_relations") && c["num_relations"].get<int64_t>() < data.graph.num_relations()) {
      throw InputError("the model knows " + c["num_relations"].dump() + " relations (inverses and self-loops included), " +
                       "the dataset's graph has " + std::to_string(data.graph.num_relations()));
    }
  }
  if (data.feature_rows && inference.mode == InferenceMode::kFull) {
    throw InputError("features out of core need layer-wise or sampled inference (--inference layerwise|sampled)");
  }
  if (inference.mode != InferenceMode::kFull) {
    if (attention != nullptr) throw InputError("attention weights are exported by full-batch inference only");
    std::vector<int64_t> all(static_cast<std::size_t>(data.graph.num_nodes()));
    std::iota(all.begin(), all.end(), int64_t{0});
    InferenceOptions o = inference;
    if (!o.feature_rows) o.feature_rows = data.feature_rows;
    return infer_node_logits(model, data.graph, data.features, all, o);
  }
  NoGradGuard no_grad;
  model.eval();
  return model.forward(data.features, data.graph, 0, attention).value();
}

RunStatistics run_statistics(const std::vector<NodeRunResult>& results) {
  const auto mean_sd = [&](double NodeRunResult::*acc) {
    double mean = 0.0, sd = 0.0;
    for (const NodeRunResult& r : results) mean += r.*acc;
    mean /= static_cast<double>(results.size());
    for (const NodeRunResult& r : results) sd += (r.*acc - mean) * (r.*acc - mean);
    sd = results.size() > 1 ? std::sqrt(sd / static_cast<double>(results.size() - 1)) : 0.0;
    return std::pair{mean, sd};
  };
  RunStatistics s;
  if (results.empty()) return s;
  std::tie(s.val_mean, s.val_sd) = mean_sd(&NodeRunResult::val_acc);
  std::tie(s.test_mean, s.test_sd) = mean_sd(&NodeRunResult::test_acc);
  return s;
}

}  // namespace attend::graph
