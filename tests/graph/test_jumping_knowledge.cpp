// What NodeClassifier gained for the GNNExplainer authors' model: "jumping_knowledge": "cat"
// (Xu et al. 2018), its usual head node_linear, "normalize_hidden" and a layer's own
// "activation" (their last convolution is concatenated without the ReLU).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "attend/core/error.hpp"
#include "attend/core/ops/shape.hpp"
#include "attend/core/registry.hpp"
#include "attend/graph/builtin_layers.hpp"
#include "attend/graph/layers/node_linear.hpp"
#include "attend/graph/node_classifier.hpp"
#include "attend/graph/node_model_spec.hpp"
#include "grad_check.hpp"
#include "model_gradients.hpp"
#include "random_graphs.hpp"
#include "parameter_by_name.hpp"

using namespace attend;
using namespace attend::graph;
using attend::testing::check_gradients;
using attend::testing::parameter;
using attend::testing::check_module_gradients;
using attend::testing::random_dataset;
using attend::testing::random_tensor;

namespace {

Json layer(const std::string& type, Json config) { return {{"type", type}, {"config", std::move(config)}}; }

// A gat layer (2 heads of 3), a gcn layer (4) and a node_linear head over their
// concatenation (6 + 4 = 10 features) into 3 classes.
Json jumping_model(int64_t in, uint64_t seed) {
  return {{"layers",
           {layer("gat", {{"in_channels", in}, {"out_channels", 3}, {"heads", 2}, {"seed", seed}}),
            layer("gcn", {{"in_channels", 6}, {"out_channels", 4}, {"seed", seed + 1}}),
            layer("node_linear", {{"in_channels", 10}, {"out_channels", 3}, {"input_dropout", 0.3}, {"seed", seed + 2}})}},
          {"activation", "relu"},
          {"jumping_knowledge", "cat"}};
}

Registry graph_registry() {
  Registry registry;
  register_graph_layers(registry);
  return registry;
}

}  // namespace

TEST_CASE("node_linear maps each node alone by x W + b and reads no edge", "[graph]") {
  const NodeLinear head(NodeLinearOptions::from_json({{"in_channels", 5}, {"out_channels", 3}, {"seed", 2}}));
  for (auto [name, v] : head.named_parameters()) {
    if (name == "bias") v.value().copy_from(random_tensor({3}, 7));
  }
  const Tensor x = random_tensor({9, 5}, 1);
  const Tensor w = parameter(head, "weight"), b = parameter(head, "bias");
  const GraphContext sparse_graph = GraphContext::from_dataset(random_dataset(9, 4, 1));
  const GraphContext dense_graph = GraphContext::from_dataset(random_dataset(9, 60, 2));
  const Tensor y = head.forward(NodeFeatures(Var(x)), sparse_graph, 0).value();
  CHECK(bitwise_equal(y, head.forward(NodeFeatures(Var(x)), dense_graph, 0).value()));
  for (int64_t i = 0; i < 9; ++i) {
    for (int64_t k = 0; k < 3; ++k) {
      double ref = b[k];
      for (int64_t q = 0; q < 5; ++q) ref += double(x[i * 5 + q]) * w[q * 3 + k];
      CHECK(y[i * 3 + k] == Approx(ref).margin(1e-5));
    }
  }
}

TEST_CASE("node_linear gradients on inputs and parameters, dense and sparse input", "[graph][grad]") {
  const GraphContext g = GraphContext::from_dataset(random_dataset(12, 30, 3));
  NodeLinear head(NodeLinearOptions::from_json({{"in_channels", 5}, {"out_channels", 3}, {"input_dropout", 0.25}, {"seed", 4}}));
  head.train();
  const Tensor x = random_tensor({12, 5}, 5);
  auto on_x = check_gradients([&](const std::vector<Var>& v) { return head.forward(NodeFeatures(v[0]), g, 3); }, {x});
  INFO(on_x.report);
  CHECK(on_x.ok);
  auto on_params = check_module_gradients(head, [&] { return head.forward(NodeFeatures(Var(x)), g, 3); });
  INFO(on_params.report);
  CHECK(on_params.ok);
  NodeLinear embedding(NodeLinearOptions::from_json({{"in_channels", 12}, {"out_channels", 3}, {"seed", 6}}));
  auto on_sparse = check_module_gradients(embedding, [&] { return embedding.forward(NodeFeatures(identity_features(12)), g, 3); });
  INFO(on_sparse.report);
  CHECK(on_sparse.ok);
}

TEST_CASE("node_linear builds through the registry, round-trips its config and refuses bad options", "[graph]") {
  const Registry registry = graph_registry();
  const Json config = {{"in_channels", 4}, {"out_channels", 2}, {"seed", 1}};
  auto module = registry.create("node_linear", config);
  CHECK(module->type_name() == "node_linear");
  CHECK(NodeLinearOptions::from_json(module->config()).to_json() == module->config());
  Json no_bias = config;
  no_bias["bias"] = false;
  CHECK(registry.create("node_linear", no_bias)->named_parameters().size() == 1);
  Json unknown = config;
  unknown["heads"] = 2;
  CHECK_THROWS_WITH(registry.create("node_linear", unknown), Catch::Matchers::Contains("heads"));
  Json zero = config;
  zero["out_channels"] = 0;
  CHECK_THROWS_AS(registry.create("node_linear", zero), InputError);
}

TEST_CASE("jumping knowledge: the last layer reads every hidden layer's activated output, concatenated", "[graph]") {
  const Registry registry = graph_registry();
  const GraphContext g = GraphContext::from_dataset(random_dataset(15, 40, 11));
  const NodeFeatures x(Var(random_tensor({15, 5}, 12)));
  NodeClassifier model(jumping_model(5, 20), registry);
  model.eval();  // no dropout in the head
  const std::vector<const NodeLayer*>& layers = model.layers();
  REQUIRE(layers.size() == 3);
  // The chain of hidden layers, activated by hand.
  auto relu = [](Tensor t) {
    for (int64_t i = 0; i < t.numel(); ++i) t[i] = t[i] > 0 ? t[i] : 0.0f;
    return t;
  };
  const Tensor h1 = relu(layers[0]->forward(x, g, 0).value());              // [15, 6]
  const Tensor h2 = relu(layers[1]->forward(NodeFeatures(Var(h1)), g, 0).value());  // [15, 4]
  // The head on [h1 | h2], in double.
  const Tensor w = parameter(model, "layers.2.weight"), b = parameter(model, "layers.2.bias");  // [10, 3], [3]
  const Tensor y = model.forward(x, g, 0).value();
  REQUIRE(y.dim(1) == 3);
  for (int64_t i = 0; i < 15; ++i) {
    std::vector<double> row;
    for (int64_t q = 0; q < 6; ++q) row.push_back(h1[i * 6 + q]);
    for (int64_t q = 0; q < 4; ++q) row.push_back(h2[i * 4 + q]);
    for (int64_t k = 0; k < 3; ++k) {
      double ref = b[k];
      for (int64_t q = 0; q < 10; ++q) ref += row[q] * w[q * 3 + k];
      CHECK(y[i * 3 + k] == Approx(ref).margin(1e-5));
    }
  }
  // Each layer still hands back its attention: the gat layer's weights, none from the others.
  std::vector<AttentionExport> attention;
  model.forward(x, g, 0, &attention);
  REQUIRE(attention.size() == 3);
  CHECK(attention[0].weights.dim(1) == 2);
  CHECK(attention[1].weights.numel() == 0);
}

TEST_CASE("jumping knowledge gradients on the input and every parameter", "[graph][grad]") {
  const Registry registry = graph_registry();
  const GraphContext g = GraphContext::from_dataset(random_dataset(14, 36, 13));
  Json config = jumping_model(5, 30);
  // Smooth everywhere: ReLU's kink and GAT's LeakyReLU would meet the finite differences' steps.
  config["activation"] = "elu";
  config["layers"][0] = layer("gcn", {{"in_channels", 5}, {"out_channels", 6}, {"seed", 30}});
  NodeClassifier model(config, registry);
  model.train();  // the head's input dropout, with a fixed seed
  const Tensor x = random_tensor({14, 5}, 14);
  auto on_x = check_gradients([&](const std::vector<Var>& v) { return model.forward(NodeFeatures(v[0]), g, 9); }, {x});
  INFO(on_x.report);
  CHECK(on_x.ok);
  auto on_params = check_module_gradients(model, [&] { return model.forward(NodeFeatures(Var(x)), g, 9); });
  INFO(on_params.report);
  CHECK(on_params.ok);
}

TEST_CASE("a jumping-knowledge model's training step is bit-identical for 1 and 2 threads", "[graph]") {
  const Registry registry = graph_registry();
  Json model = jumping_model(32, 40);
  model["layers"][1]["config"]["input_dropout"] = 0.5;
  const GraphContext g = GraphContext::from_dataset(random_dataset(3000, 12000, 15));
  const NodeFeatures features(Var(random_tensor({3000, 32}, 16)));
  const Tensor seed_grad = random_tensor({3000, 3}, 17);
  const auto one = attend::testing::model_output_and_gradients(model, registry, g, features, seed_grad, 1);
  const auto two = attend::testing::model_output_and_gradients(model, registry, g, features, seed_grad, 2);
  REQUIRE(one.size() == two.size());
  for (std::size_t i = 0; i < one.size(); ++i) CHECK(bitwise_equal(one[i], two[i]));
}

TEST_CASE("jumping knowledge is off unless asked, and a config without it is the plain stack", "[graph]") {
  const Registry registry = graph_registry();
  NodeDataset d = random_dataset(20, 50, 18);
  d.features = SparseMatrix::from_dense(random_tensor({20, 4}, 19));
  d.num_classes = 3;
  const GraphContext g = GraphContext::from_dataset(d);
  const Json layers = Json::array({{{"type", "gcn"}, {"out_channels", 8}}, {{"type", "gcn"}, {"out_channels", 5}},
                                   {{"type", "node_linear"}}});
  const NodeModelSpec plain = NodeModelSpec::from_json({{"layers", layers}}, "plain");
  const Json plain_config = resolve_model_config(plain, d, g, 1, registry);
  CHECK_FALSE(plain_config.contains("jumping_knowledge"));  // the configs (and checkpoints) of before
  CHECK(plain_config["layers"][2]["config"]["in_channels"] == 5);
  Json explicit_none = plain_config;
  explicit_none["jumping_knowledge"] = "none";
  const NodeFeatures x(Var(random_tensor({20, 4}, 20)));
  CHECK(bitwise_equal(NodeClassifier(plain_config, registry).forward(x, g, 0).value(),
                      NodeClassifier(explicit_none, registry).forward(x, g, 0).value()));

  const NodeModelSpec jumping = NodeModelSpec::from_json({{"layers", layers}, {"jumping_knowledge", "cat"}}, "jk");
  const Json jumping_config = resolve_model_config(jumping, d, g, 1, registry);
  CHECK(jumping_config["jumping_knowledge"] == "cat");
  CHECK(jumping_config["layers"][2]["config"]["in_channels"] == 8 + 5);  // the head reads both hidden layers
  CHECK(NodeClassifier(jumping_config, registry).forward(x, g, 0).value().dim(1) == 3);
}

TEST_CASE("jumping knowledge refuses an unknown mode, a lone layer and a head of the wrong width", "[graph]") {
  const Registry registry = graph_registry();
  const Json one = Json::array({{{"type", "gcn"}}});
  CHECK_THROWS_WITH(NodeModelSpec::from_json({{"layers", one}, {"jumping_knowledge", "max"}}, "m"),
                    Catch::Contains("jumping_knowledge") && Catch::Contains("'max'"));
  CHECK_THROWS_WITH(NodeModelSpec::from_json({{"layers", one}, {"jumping_knowledge", "cat"}}, "m"),
                    Catch::Contains("at least two layers"));
  Json model = jumping_model(5, 1);
  model["layers"][2]["config"]["in_channels"] = 4;  // the last hidden layer's width, not the sum
  CHECK_THROWS_WITH(NodeClassifier(model, registry), Catch::Contains("the concatenated hidden layers give 10"));
  model["jumping_knowledge"] = "sum";
  CHECK_THROWS_AS(NodeClassifier(model, registry), InputError);
  CHECK_THROWS_WITH(NodeModelSpec::from_json({{"layers", one}, {"clip_grad_norm", -1}}, "m"),
                    Catch::Contains("clip_grad_norm"));
}

TEST_CASE("normalize_hidden divides each hidden output row by its norm before the activation", "[graph]") {
  const Registry registry = graph_registry();
  const GraphContext g = GraphContext::from_dataset(random_dataset(12, 30, 21));
  const NodeFeatures x(Var(random_tensor({12, 5}, 22)));
  Json config = jumping_model(5, 50);
  config["normalize_hidden"] = true;
  config["layers"][2]["config"]["input_dropout"] = 0.0;
  const NodeClassifier model(config, registry);
  const std::vector<const NodeLayer*>& layers = model.layers();
  auto normalized_relu = [](Tensor t) {  // rows of t / ||row||, then max(0, .)
    const int64_t c = t.dim(1);
    for (int64_t i = 0; i < t.dim(0); ++i) {
      double norm = 0;
      for (int64_t k = 0; k < c; ++k) norm += double(t[i * c + k]) * t[i * c + k];
      for (int64_t k = 0; k < c; ++k) t[i * c + k] = std::max(0.0f, float(t[i * c + k] / std::sqrt(norm)));
    }
    return t;
  };
  const Tensor h1 = normalized_relu(layers[0]->forward(x, g, 0).value());                 // [12, 6]
  const Tensor h2 = normalized_relu(layers[1]->forward(NodeFeatures(Var(h1)), g, 0).value());  // [12, 4]
  const Tensor ref = layers[2]->forward(NodeFeatures(Var(ops::concat({Var(h1), Var(h2)}).value())), g, 0).value();
  const Tensor y = model.forward(x, g, 0).value();
  CHECK(max_abs_diff(y, ref) < 1e-5f);
  // Off by default, and then the outputs differ.
  CHECK(max_abs_diff(NodeClassifier(jumping_model(5, 50), registry).forward(x, g, 0).value(), y) > 1e-3f);
  // Finite differences on a smooth model (ReLU's kink and GAT's LeakyReLU would meet the steps).
  config["activation"] = "elu";
  config["layers"][0] = layer("gcn", {{"in_channels", 5}, {"out_channels", 6}, {"seed", 50}});
  const NodeClassifier smooth(config, registry);
  attend::testing::GradCheckOptions small_steps;
  small_steps.eps = 2e-3f;  // the normalisation curves strongly where a row's norm is small
  auto smooth_grads = check_module_gradients(smooth, [&] { return smooth.forward(x, g, 0); }, small_steps);
  INFO(smooth_grads.report);
  CHECK(smooth_grads.ok);
  const NodeModelSpec spec = NodeModelSpec::from_json({{"layers", Json::array({{{"type", "gcn"}}})}, {"normalize_hidden", true}}, "m");
  CHECK(spec.normalize_hidden);
}

TEST_CASE("a layer's own activation replaces the model's after that layer, its normaliser's too", "[graph]") {
  const Registry registry = graph_registry();
  const GraphContext g = GraphContext::from_dataset(random_dataset(15, 40, 11));
  const NodeFeatures x(Var(random_tensor({15, 5}, 12)));
  Json config = jumping_model(5, 20);
  NodeClassifier relu_everywhere(config, registry);
  config["layers"][1]["activation"] = "none";  // the gcn layer's output joins the head as it is
  NodeClassifier last_plain(config, registry);
  relu_everywhere.eval();
  last_plain.eval();
  const std::vector<const NodeLayer*>& layers = last_plain.layers();
  const Tensor h1 = relu_everywhere.layer_forward(0, x, g, 0).value();  // [15, 6], activated
  CHECK(bitwise_equal(h1, last_plain.layer_forward(0, x, g, 0).value()));
  const Tensor plain = layers[1]->forward(NodeFeatures(Var(h1)), g, 1).value();  // [15, 4], not activated
  const Tensor got = last_plain.layer_forward(1, NodeFeatures(Var(h1)), g, 0).value();
  CHECK(bitwise_equal(got, plain));
  CHECK(std::any_of(got.data(), got.data() + got.numel(), [](float v) { return v < 0.0f; }));
  const Tensor activated = relu_everywhere.layer_forward(1, NodeFeatures(Var(h1)), g, 0).value();
  CHECK(std::none_of(activated.data(), activated.data() + activated.numel(), [](float v) { return v < 0.0f; }));
  // The same weights either way; the head reads the unactivated output.
  CHECK_FALSE(bitwise_equal(relu_everywhere.forward(x, g, 0).value(), last_plain.forward(x, g, 0).value()));
  config["layers"][1]["activation"] = "relu";  // naming the model's own changes nothing
  NodeClassifier named(config, registry);
  named.eval();
  CHECK(bitwise_equal(named.forward(x, g, 0).value(), relu_everywhere.forward(x, g, 0).value()));

  // Followed by a batch_norm, the activation it names comes after the batch norm.
  const Json bn_model = {{"layers",
                          {layer("gcn", {{"in_channels", 5}, {"out_channels", 4}, {"seed", 1}}),
                           layer("batch_norm", {{"in_channels", 4}}),
                           {{"type", "gcn"}, {"config", {{"in_channels", 4}, {"out_channels", 4}, {"seed", 2}}}, {"activation", "none"}},
                           layer("batch_norm", {{"in_channels", 4}}),
                           layer("node_linear", {{"in_channels", 8}, {"out_channels", 3}, {"seed", 3}})}},
                         {"activation", "relu"},
                         {"jumping_knowledge", "cat"}};
  NodeClassifier bn(bn_model, registry);
  bn.eval();
  const Tensor first = bn.layer_forward(1, NodeFeatures(bn.layer_forward(0, x, g, 0)), g, 0).value();
  CHECK(std::none_of(first.data(), first.data() + first.numel(), [](float v) { return v < 0.0f; }));
  const Tensor second = bn.layer_forward(3, NodeFeatures(bn.layer_forward(2, NodeFeatures(Var(first)), g, 0)), g, 0).value();
  CHECK(std::any_of(second.data(), second.data() + second.numel(), [](float v) { return v < 0.0f; }));

  // Not on the head, not on a batch_norm, and only a known name.
  for (const auto& [index, value] : {std::pair{2, "none"}, std::pair{1, "tanh"}}) {
    Json bad = jumping_model(5, 20);
    bad["layers"][index]["activation"] = value;
    CHECK_THROWS_AS(NodeClassifier(bad, registry), InputError);
  }
  Json on_norm = bn_model;
  on_norm["layers"][1]["activation"] = "none";
  CHECK_THROWS_WITH(NodeClassifier(on_norm, registry), Catch::Contains("cannot carry an activation"));
  // A model file names it on the layer, beside the layer's options.
  const NodeModelSpec spec = NodeModelSpec::from_json(
      {{"layers", {{{"type", "gcn"}, {"out_channels", 4}, {"activation", "none"}}, {{"type", "gcn"}}}}}, "test");
  CHECK(spec.layers[0].contains("activation") == false);
  CHECK(spec.layer_activation == std::vector<std::string>{"none", ""});
  CHECK_THROWS_AS(NodeModelSpec::from_json({{"layers", {{{"type", "gcn"}, {"activation", 1}}}}}, "test"), InputError);
}
