// The batch_norm node layer (Ioffe & Szegedy 2015) and its place in a NodeClassifier.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "attend/core/error.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/random.hpp"
#include "attend/core/registry.hpp"
#include "attend/graph/builtin_layers.hpp"
#include "attend/graph/layers/batch_norm.hpp"
#include "attend/graph/node_classifier.hpp"
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

void set_parameter(const Module& m, const std::string& name, const Tensor& value) {
  for (auto [n, v] : m.named_parameters()) {
    if (n == name) v.value().copy_from(value);
  }
}

Json layer(const std::string& type, Json config) { return {{"type", type}, {"config", std::move(config)}}; }

// gcn (in -> 6), batch_norm, gcn (6 -> 4), batch_norm, node_linear head over [6 + 4] -> 3.
Json normalized_model(int64_t in, uint64_t seed) {
  return {{"layers",
           {layer("gcn", {{"in_channels", in}, {"out_channels", 6}, {"normalize", false}, {"seed", seed}}),
            layer("batch_norm", {{"in_channels", 6}}),
            layer("gcn", {{"in_channels", 6}, {"out_channels", 4}, {"input_dropout", 0.2}, {"seed", seed + 1}}),
            layer("batch_norm", {{"in_channels", 4}, {"momentum", 0.3}}),
            layer("node_linear", {{"in_channels", 10}, {"out_channels", 3}, {"seed", seed + 2}})}},
          {"activation", "relu"},
          {"jumping_knowledge", "cat"},
          {"normalize_hidden", true}};
}

Registry graph_registry() {
  Registry registry;
  register_graph_layers(registry);
  return registry;
}

}  // namespace

TEST_CASE("batch_norm trains on batch statistics, keeps running averages and evaluates with them", "[graph]") {
  BatchNorm bn(BatchNormOptions::from_json({{"in_channels", 3}, {"momentum", 0.25}}));
  set_parameter(bn, "weight", random_tensor({3}, 1, 0.5f, 2.0f));
  set_parameter(bn, "bias", random_tensor({3}, 2));
  const GraphContext g = GraphContext::from_dataset(random_dataset(8, 10, 3));
  const Tensor x = random_tensor({8, 3}, 4, -2.0f, 3.0f);
  const Tensor w = parameter(bn, "weight"), b = parameter(bn, "bias");
  bn.train();
  const Tensor y = bn.forward(NodeFeatures(Var(x)), g, 0).value();
  const Tensor running_mean = parameter(bn, "running_mean"), running_var = parameter(bn, "running_var");
  for (int64_t j = 0; j < 3; ++j) {
    double mu = 0, var = 0;
    for (int64_t r = 0; r < 8; ++r) mu += x[r * 3 + j] / 8.0;
    for (int64_t r = 0; r < 8; ++r) var += (x[r * 3 + j] - mu) * (x[r * 3 + j] - mu) / 8.0;
    for (int64_t r = 0; r < 8; ++r) {
      CHECK(y[r * 3 + j] == Approx((x[r * 3 + j] - mu) / std::sqrt(var + 1e-5) * w[j] + b[j]).margin(1e-5));
    }
    CHECK(running_mean[j] == Approx(0.25 * mu).margin(1e-6));                  // from 0
    CHECK(running_var[j] == Approx(0.75 + 0.25 * var * 8.0 / 7.0).margin(1e-5));  // from 1, unbiased
  }
  bn.eval();
  const Tensor z = bn.forward(NodeFeatures(Var(x)), g, 0).value();
  CHECK(bitwise_equal(parameter(bn, "running_mean"), running_mean));  // evaluation leaves them
  for (int64_t r = 0; r < 8; ++r) {
    for (int64_t j = 0; j < 3; ++j) {
      const double ref = (x[r * 3 + j] - running_mean[j]) / std::sqrt(running_var[j] + 1e-5) * w[j] + b[j];
      CHECK(z[r * 3 + j] == Approx(ref).margin(1e-5));
    }
  }
  // Evaluation maps each node on its own: a row gives the same output alone.
  const Tensor one = bn.forward(NodeFeatures(Var(Tensor({1, 3}, {x[6], x[7], x[8]}))), g, 0).value();
  for (int64_t j = 0; j < 3; ++j) CHECK(one[j] == z[2 * 3 + j]);
}

TEST_CASE("batch_norm gradients on inputs and parameters, training and evaluation mode", "[graph][grad]") {
  const GraphContext g = GraphContext::from_dataset(random_dataset(10, 20, 5));
  BatchNorm bn(BatchNormOptions::from_json({{"in_channels", 4}}));
  set_parameter(bn, "weight", random_tensor({4}, 6, 0.5f, 1.5f));
  set_parameter(bn, "bias", random_tensor({4}, 7));
  set_parameter(bn, "running_mean", random_tensor({4}, 8));
  set_parameter(bn, "running_var", random_tensor({4}, 9, 0.5f, 2.0f));
  const Tensor x = random_tensor({10, 4}, 10, -2.0f, 2.0f);
  for (const bool training : {true, false}) {
    INFO("training " << training);
    bn.train(training);
    auto on_x = check_gradients([&](const std::vector<Var>& v) { return bn.forward(NodeFeatures(v[0]), g, 0); }, {x});
    INFO(on_x.report);
    CHECK(on_x.ok);
    auto on_params = check_module_gradients(bn, [&] { return bn.forward(NodeFeatures(Var(x)), g, 0); });
    INFO(on_params.report);
    CHECK(on_params.ok);
  }
}

TEST_CASE("batch_norm in a classifier: after its layer, before the activation, in that layer's place in the concatenation",
          "[graph]") {
  const Registry registry = graph_registry();
  const GraphContext g = GraphContext::from_dataset(random_dataset(12, 30, 11));
  const NodeFeatures x(Var(random_tensor({12, 5}, 12)));
  NodeClassifier model(normalized_model(5, 20), registry);
  model.train();  // batch statistics; the head has no dropout and the seed fixes the gcn's
  CHECK(model.joins_head_input(1));
  CHECK_FALSE(model.joins_head_input(0));
  const std::vector<const NodeLayer*>& layers = model.layers();
  const Var y = model.forward(x, g, 7);
  // By hand: gcn, L2 rows, batch norm, relu; twice; the head on [h1 | h2].
  auto l2_relu = [](Tensor t, bool l2) {
    const int64_t c = t.dim(1);
    for (int64_t r = 0; r < t.dim(0); ++r) {
      double s = 0;
      for (int64_t j = 0; j < c; ++j) s += double(t[r * c + j]) * t[r * c + j];
      for (int64_t j = 0; j < c; ++j) {
        float v = l2 ? static_cast<float>(t[r * c + j] / std::max(std::sqrt(s), 1e-12)) : t[r * c + j];
        t[r * c + j] = l2 ? v : (v > 0 ? v : 0.0f);
      }
    }
    return t;
  };
  NodeClassifier again(normalized_model(5, 20), registry);  // fresh running statistics, same weights
  again.train();
  const auto& ls = again.layers();
  const uint64_t seed = 7;
  const Tensor a1 = l2_relu(ls[0]->forward(x, g, mix64(seed + 0)).value(), true);
  const Tensor h1 = l2_relu(ls[1]->forward(NodeFeatures(Var(a1)), g, mix64(seed + 1)).value(), false);
  const Tensor a2 = l2_relu(ls[2]->forward(NodeFeatures(Var(h1)), g, mix64(seed + 2)).value(), true);
  const Tensor h2 = l2_relu(ls[3]->forward(NodeFeatures(Var(a2)), g, mix64(seed + 3)).value(), false);
  const Tensor w = parameter(model, "layers.4.weight"), b = parameter(model, "layers.4.bias");  // [10, 3]
  for (int64_t i = 0; i < 12; ++i) {
    for (int64_t k = 0; k < 3; ++k) {
      double ref = b[k];
      for (int64_t q = 0; q < 6; ++q) ref += double(h1[i * 6 + q]) * w[q * 3 + k];
      for (int64_t q = 0; q < 4; ++q) ref += double(h2[i * 4 + q]) * w[(6 + q) * 3 + k];
      CHECK(y.value()[i * 3 + k] == Approx(ref).margin(1e-4));
    }
  }
  CHECK(layers[1]->passes_messages() == false);
}

TEST_CASE("a classifier with batch_norm: gradients on the input and every parameter", "[graph][grad]") {
  const Registry registry = graph_registry();
  const GraphContext g = GraphContext::from_dataset(random_dataset(14, 40, 13));
  // ELU and no L2 normalisation: smooth, so central differences are accurate (the forward
  // test above covers the L2 normalisation and ReLU in their places).
  Json config = normalized_model(5, 30);
  config["activation"] = "elu";
  config["normalize_hidden"] = false;
  NodeClassifier model(config, registry);
  const Tensor x = random_tensor({14, 5}, 14);
  for (const bool training : {true, false}) {
    INFO("training " << training);
    model.train(training);
    auto on_x = check_gradients([&](const std::vector<Var>& v) { return model.forward(NodeFeatures(v[0]), g, 3); }, {x});
    INFO(on_x.report);
    CHECK(on_x.ok);
    auto on_params = check_module_gradients(model, [&] { return model.forward(NodeFeatures(Var(x)), g, 3); });
    INFO(on_params.report);
    CHECK(on_params.ok);
  }
}

TEST_CASE("a classifier with batch_norm: a training step and its running statistics are bit-identical for 1 and 3 threads",
          "[graph]") {
  const Registry registry = graph_registry();
  const GraphContext g = GraphContext::from_dataset(random_dataset(3000, 12000, 15));
  const NodeFeatures x(Var(random_tensor({3000, 5}, 16)));
  const Tensor seed_grad = random_tensor({3000, 3}, 17);
  auto run = [&](int threads) {
    const int before = num_threads();
    set_num_threads(threads);
    NodeClassifier model(normalized_model(5, 40), registry);
    model.train();
    Var y = model.forward(x, g, 42);
    y.backward(seed_grad);
    std::vector<Tensor> out{y.value()};
    for (const auto& [name, p] : model.named_parameters()) {
      out.push_back(p.grad());
      out.push_back(p.value());  // the running statistics moved by the forward
    }
    model.eval();
    out.push_back(model.forward(x, g, 42).value());
    set_num_threads(before);
    return out;
  };
  const auto one = run(1), three = run(3);
  REQUIRE(one.size() == three.size());
  for (std::size_t i = 0; i < one.size(); ++i) CHECK(bitwise_equal(one[i], three[i]));
}

TEST_CASE("batch_norm builds through the registry and refuses bad options and places", "[graph]") {
  const Registry registry = graph_registry();
  auto module = registry.create("batch_norm", {{"in_channels", 4}});
  CHECK(module->type_name() == "batch_norm");
  CHECK(BatchNormOptions::from_json(module->config()).to_json() == module->config());
  CHECK(module->named_parameters().size() == 4);
  CHECK_THROWS_AS(registry.create("batch_norm", {{"in_channels", 4}, {"momentum", 0.0}}), InputError);
  CHECK_THROWS_AS(registry.create("batch_norm", {{"in_channels", 4}, {"eps", -1.0}}), InputError);
  CHECK_THROWS_WITH(registry.create("batch_norm", {{"in_channels", 4}, {"affine", false}}), Catch::Matchers::Contains("affine"));
  Json first = normalized_model(6, 1);
  first["layers"][0] = layer("batch_norm", {{"in_channels", 6}});
  CHECK_THROWS_WITH(NodeClassifier(first, registry), Catch::Matchers::Contains("first or the last"));
  Json wide = normalized_model(5, 1);
  wide["layers"][4]["config"]["in_channels"] = 20;  // as if the normalised layers were concatenated too
  CHECK_THROWS_WITH(NodeClassifier(wide, registry), Catch::Matchers::Contains("10"));
}
