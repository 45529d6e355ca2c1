#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>

#include "attend/core/error.hpp"
#include "attend/core/registry.hpp"
#include "attend/graph/builtin_layers.hpp"
#include "attend/graph/node_training.hpp"
#include "random_graphs.hpp"
#include "temp_dir.hpp"

using namespace attend;
using namespace attend::graph;

namespace {
// A random typed graph of n nodes and two classes (labels drawn from seed + 1) whose first
// n_train nodes are the training split.
NodeDataset two_class_dataset(int64_t n, int64_t edges, int64_t relations, uint64_t seed, int64_t n_train) {
  NodeDataset d = testing::random_typed_dataset(n, edges, relations, seed);
  d.num_classes = 2;
  Rng rng(seed + 1);
  for (int64_t i = 0; i < n; ++i) d.labels[i] = static_cast<int64_t>(rng.below(2));
  for (int64_t i = 0; i < n_train; ++i) d.train.push_back(i);
  return d;
}

// Two R-GCN layers trained 12 epochs by SGD with a learning rate far too high: the losses
// jump around, so the best epoch is rarely the last.
NodeModelSpec jumpy_rgcn_spec() {
  const Json model = {{"layers", Json::array({{{"type", "rgcn"}, {"out_channels", 8}, {"num_relations", "auto"}},
                                              {{"type", "rgcn"}, {"num_relations", "auto"}}})},
                      {"activation", "relu"}, {"optimizer", {{"type", "sgd"}, {"lr", 20.0}}},
                      {"epochs", 12}, {"patience", 0}, {"normalize_features", false}};
  return NodeModelSpec::from_json(model, "test");
}
}  // namespace

TEST_CASE("without a validation split the last epoch's model is kept, not the best on training",
          "[graph]") {
  Registry registry;
  register_graph_layers(registry);
  NodeDataset d = two_class_dataset(40, 160, 3, 31, 20);
  for (int64_t i = 20; i < 40; ++i) d.test.push_back(i);
  const NodeModelSpec spec = jumpy_rgcn_spec();
  const PreparedNodeData data = prepare_node_data(d, false);
  NodeRunOptions o;
  o.progress.mode = ProgressMode::kSilent;
  // The accuracy after exactly k epochs: a run of k epochs keeps its last model.
  auto after = [&](int epochs) {
    o.epochs = epochs;
    return train_node_classifier(data, spec, registry, o);
  };
  const NodeRunResult full = after(12);
  CHECK(full.epochs == 12);
  CHECK(full.best_epoch == 11);
  // Deterministic, and the result is that of epoch 12, not of an earlier epoch.
  CHECK(after(12).test_acc == full.test_acc);
  CHECK(std::isnan(full.val_acc));
}

TEST_CASE("hold_out_validation moves a seeded fraction of the training nodes", "[graph]") {
  NodeDataset d;
  d.name = "t";
  for (int64_t i = 0; i < 50; ++i) d.train.push_back(3 * i);
  const std::vector<int64_t> original = d.train;
  NodeDataset a = d, b = d, c = d;
  hold_out_validation(a, 0.2, 7);
  hold_out_validation(b, 0.2, 7);
  hold_out_validation(c, 0.2, 8);
  CHECK(a.val.size() == 10);
  CHECK(a.train.size() == 40);
  CHECK(std::is_sorted(a.val.begin(), a.val.end()));
  CHECK(std::is_sorted(a.train.begin(), a.train.end()));  // the order of `original` is kept
  std::vector<int64_t> all = a.train;
  all.insert(all.end(), a.val.begin(), a.val.end());
  std::sort(all.begin(), all.end());
  CHECK(all == original);  // a partition of the training nodes
  CHECK(a.val == b.val);   // the seed fixes the choice
  CHECK(a.val != c.val);
  NodeDataset tiny = d;
  hold_out_validation(tiny, 0.001, 0);  // at least one held out
  CHECK(tiny.val.size() == 1);
  tiny = d;
  hold_out_validation(tiny, 0.999, 0);  // at least one kept
  CHECK(tiny.train.size() == 1);
  CHECK_THROWS_AS(hold_out_validation(a, 0.2, 0), InputError);  // already has one
  NodeDataset bad = d;
  CHECK_THROWS_AS(hold_out_validation(bad, 0.0, 0), InputError);
  CHECK_THROWS_AS(hold_out_validation(bad, 1.0, 0), InputError);
}

TEST_CASE("with early stopping off a validation split scores the last epoch's model", "[graph]") {
  Registry registry;
  register_graph_layers(registry);
  NodeDataset d = two_class_dataset(40, 160, 3, 31, 30);
  for (int64_t i = 30; i < 40; ++i) d.test.push_back(i);
  hold_out_validation(d, 0.3, 1);
  const NodeModelSpec spec = jumpy_rgcn_spec();
  const PreparedNodeData data = prepare_node_data(d, false);
  NodeRunOptions o;
  o.progress.mode = ProgressMode::kSilent;
  const NodeRunResult full = train_node_classifier(data, spec, registry, o);
  CHECK(full.epochs == 12);
  CHECK(full.best_epoch == 11);
  CHECK(!std::isnan(full.val_acc));
  // With early stopping on, the best validation epoch (here an earlier one) is restored.
  o.patience = 100;
  const NodeRunResult stopped = train_node_classifier(data, spec, registry, o);
  CHECK(stopped.epochs == 12);
  CHECK(stopped.best_epoch < 11);
  CHECK(stopped.val_acc > full.val_acc);
}

TEST_CASE("a layer's weight_decay is an L2 term on that layer's parameters only", "[graph]") {
  Registry registry;
  register_graph_layers(registry);
  const NodeDataset d = two_class_dataset(30, 120, 2, 41, 20);
  const PreparedNodeData data = prepare_node_data(d, false);
  testing::TempDir tmp;
  // The parameters after one SGD step (the same initial values and gradients in every run),
  // with decay 0.3 from the optimizer (all layers) or from the layers given in `layer_decay`.
  auto trained = [&](double optimizer_decay, std::vector<double> layer_decay) {
    Json layers = Json::array({{{"type", "rgcn"}, {"out_channels", 4}, {"num_relations", "auto"}},
                               {{"type", "rgcn"}, {"num_relations", "auto"}}});
    for (std::size_t i = 0; i < layer_decay.size(); ++i) {
      if (layer_decay[i] > 0) layers[i]["weight_decay"] = layer_decay[i];
    }
    const Json model = {{"layers", layers}, {"activation", "relu"},
                        {"optimizer", {{"type", "sgd"}, {"lr", 0.5}, {"weight_decay", optimizer_decay}}},
                        {"epochs", 1}, {"patience", 0}, {"normalize_features", false}};
    NodeRunOptions o;
    o.progress.mode = ProgressMode::kSilent;
    o.save_path = tmp.file("model.h5");
    train_node_classifier(data, NodeModelSpec::from_json(model, "test"), registry, o);
    LoadedNodeModel loaded = load_node_model(o.save_path, registry);
    std::map<std::string, Tensor> params;
    for (const auto& [name, var] : loaded.model->named_parameters()) params.emplace(name, Tensor(var.value()));
    return params;
  };
  const auto none = trained(0.0, {});
  const auto global = trained(0.3, {});
  const auto both = trained(0.0, {0.3, 0.3});
  const auto first = trained(0.0, {0.3, 0.0});
  REQUIRE(global.size() == both.size());
  for (const auto& [name, value] : global) {
    INFO(name);
    CHECK(max_abs_diff(value, both.at(name)) < 1e-6f);  // the same update as the optimizer's decay
    const bool in_first = name.rfind("layers.0.", 0) == 0;
    CHECK(max_abs_diff(first.at(name), in_first ? global.at(name) : none.at(name)) < 1e-6f);
  }
  // The decay did something: the decayed first layer is not the undecayed one.
  CHECK(max_abs_diff(first.at("layers.0.weight"), none.at("layers.0.weight")) > 1e-3f);
  CHECK_THROWS_AS(NodeModelSpec::from_json({{"layers", Json::array({{{"type", "rgcn"}, {"weight_decay", -1}}})}}, "t"),
                  InputError);
}

TEST_CASE("a model file names its stopping rule", "[graph]") {
  const Json layers = Json::array({{{"type", "gat"}, {"heads", 1}}});
  CHECK(NodeModelSpec::from_json({{"layers", layers}}, "m").stopping == "gat-reference");
  const NodeModelSpec spec = NodeModelSpec::from_json({{"layers", layers}, {"stopping", "gat-accuracy"}}, "m");
  CHECK(stopping_rule(spec.stopping) == StoppingRule::kGatAccuracy);
  CHECK(stopping_rule("gat-reference") == StoppingRule::kGatReference);
  CHECK_THROWS_WITH(NodeModelSpec::from_json({{"layers", layers}, {"stopping", "val-loss"}}, "m"),
                    Catch::Contains("unknown stopping rule 'val-loss'"));
  CHECK_THROWS_WITH(NodeModelSpec::from_json({{"layers", layers}, {"stoping", "gat-accuracy"}}, "m"),
                    Catch::Contains("m: unknown option 'stoping'") && Catch::Contains("stopping"));
}

TEST_CASE("a saved model refuses data of another input width or with more relations", "[graph]") {
  Registry registry;
  register_graph_layers(registry);
  testing::TempDir tmp;
  NodeRunOptions o;
  o.progress.mode = ProgressMode::kSilent;
  o.epochs = 1;
  o.save_path = tmp.file("model.h5");
  // Featureless: the input width is the node count; 3 edge types.
  train_node_classifier(prepare_node_data(two_class_dataset(30, 120, 3, 41, 20), false), jumpy_rgcn_spec(), registry, o);
  LoadedNodeModel loaded = load_node_model(o.save_path, registry);
  const auto message = [&](const NodeDataset& d) -> std::string {
    try {
      predict_logits(*loaded.model, prepare_node_data(d, false));
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  CHECK(message(two_class_dataset(30, 90, 3, 5, 20)).empty());  // same shape, other edges: fine
  CHECK(message(two_class_dataset(30, 120, 2, 5, 20)).empty());  // fewer relations: fine
  CHECK_THAT(message(two_class_dataset(31, 120, 3, 5, 20)),
             Catch::Contains("the model reads 30 input features per node") && Catch::Contains("the dataset has 31"));
  CHECK_THAT(message(two_class_dataset(30, 120, 5, 5, 20)), Catch::Contains("the model knows") &&
                                                                Catch::Contains("relations"));
}

TEST_CASE("a model file's clip_grad_norm bounds each step's gradient norm", "[graph]") {
  Registry registry;
  register_graph_layers(registry);
  const NodeDataset d = two_class_dataset(30, 120, 2, 43, 20);
  const PreparedNodeData data = prepare_node_data(d, false);
  testing::TempDir tmp;
  // The L2 distance the parameters move in one SGD step of lr 1, from the initial values
  // (the same seed gives the same initial model).
  auto step_length = [&](double clip) {
    Json model = jumpy_rgcn_spec().layers;
    const Json file = {{"layers", model}, {"activation", "relu"}, {"optimizer", {{"type", "sgd"}, {"lr", 1.0}}},
                       {"epochs", 1}, {"patience", 0}, {"normalize_features", false}, {"clip_grad_norm", clip}};
    const NodeModelSpec spec = NodeModelSpec::from_json(file, "test");
    const NodeClassifier initial(resolve_model_config(spec, d, data.graph, 0, registry), registry);
    NodeRunOptions o;
    o.progress.mode = ProgressMode::kSilent;
    o.save_path = tmp.file("model.h5");
    train_node_classifier(data, spec, registry, o);
    LoadedNodeModel trained = load_node_model(o.save_path, registry);
    std::map<std::string, Tensor> before;
    for (const auto& [name, var] : initial.named_parameters()) before.emplace(name, Tensor(var.value()));
    double squared = 0.0;
    for (const auto& [name, var] : trained.model->named_parameters()) {
      const Tensor& a = before.at(name);
      for (int64_t k = 0; k < a.numel(); ++k) squared += std::pow(double(var.value()[k]) - a[k], 2);
    }
    return std::sqrt(squared);
  };
  const double free = step_length(0.0);
  REQUIRE(free > 0.1);
  CHECK(step_length(0.05) == Approx(0.05).epsilon(1e-3));  // clipped to the bound
  CHECK(step_length(10 * free) == Approx(free).epsilon(1e-6));  // a bound above the norm changes nothing
}

TEST_CASE("a batch_norm model saves its running statistics, and layer-wise inference gives what full inference gives",
          "[graph]") {
  Registry registry;
  register_graph_layers(registry);
  const NodeDataset d = two_class_dataset(40, 160, 1, 47, 30);
  const PreparedNodeData data = prepare_node_data(d, false);
  const Json file = {{"layers", Json::array({{{"type", "gcn"}, {"out_channels", 6}}, {{"type", "batch_norm"}, {"momentum", 0.5}},
                                             {{"type", "gcn"}}})},
                     {"activation", "relu"}, {"optimizer", {{"type", "adam"}, {"lr", 0.05}, {"weight_decay", 0.1}}},
                     {"epochs", 4}, {"patience", 0}, {"normalize_features", false}};
  testing::TempDir tmp;
  NodeRunOptions o;
  o.progress.mode = ProgressMode::kSilent;
  o.save_path = tmp.file("model.h5");
  train_node_classifier(data, NodeModelSpec::from_json(file, "test"), registry, o);
  LoadedNodeModel loaded = load_node_model(o.save_path, registry);
  // Four training forwards moved the running statistics off their zeros and ones, and the
  // checkpoint holds them (the arena test checks that no optimizer step touches them).
  Tensor running_mean, running_var;
  for (const auto& [name, var] : loaded.model->named_parameters()) {
    if (name == "layers.1.running_mean") running_mean = var.value();
    if (name == "layers.1.running_var") running_var = var.value();
  }
  REQUIRE(running_mean.numel() == 6);
  double moved = 0.0;
  for (int64_t j = 0; j < 6; ++j) moved += std::abs(running_mean[j]) + std::abs(running_var[j] - 1.0f);
  CHECK(moved > 0.0);
  const Tensor full = predict_logits(*loaded.model, data);
  InferenceOptions layerwise;
  layerwise.mode = InferenceMode::kLayerwise;
  layerwise.batch_size = 7;
  const Tensor by_layer = predict_logits(*loaded.model, data, nullptr, layerwise);
  REQUIRE(full.shape() == by_layer.shape());
  for (int64_t i = 0; i < full.numel(); ++i) CHECK(by_layer[i] == Approx(full[i]).margin(1e-5));
}
