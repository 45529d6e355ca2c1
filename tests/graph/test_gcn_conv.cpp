#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include "attend/core/error.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/registry.hpp"
#include "attend/graph/builtin_layers.hpp"
#include "attend/graph/layers/gat_conv.hpp"
#include "attend/graph/layers/gcn_conv.hpp"
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

// GCN (Kipf & Welling 2017, Eq. 2) written out edge by edge, in double: x'_i = sum over the
// in-edges j -> i of the view of c_ij (x_j W) + b, c_ij = 1 / sqrt(d_i d_j) with d the
// in-degree in that view, or 1 without normalisation.
Tensor naive_gcn(const Tensor& x, const Tensor& w, const Tensor& b, const GraphView& view, bool normalize) {
  const int64_t n = x.dim(0), f = x.dim(1), c = w.dim(1);
  std::vector<double> degree(n, 0.0);
  for (int64_t e = 0; e < view.num_edges(); ++e) degree[view.dst[e]] += 1;
  std::vector<double> out(n * c, 0.0);
  for (int64_t e = 0; e < view.num_edges(); ++e) {
    const int64_t i = view.dst[e], j = view.src[e];
    const double coefficient = normalize ? 1.0 / std::sqrt(degree[i] * degree[j]) : 1.0;
    for (int64_t k = 0; k < c; ++k) {
      double xw = 0;
      for (int64_t q = 0; q < f; ++q) xw += double(x[j * f + q]) * w[q * c + k];
      out[i * c + k] += coefficient * xw;
    }
  }
  Tensor y({n, c});
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < c; ++k) y[i * c + k] = float(out[i * c + k] + b[k]);
  return y;
}

Json config(int64_t in, int64_t out) { return {{"in_channels", in}, {"out_channels", out}, {"seed", 5}}; }

}  // namespace

TEST_CASE("gcn layer equals Kipf & Welling's propagation written out edge by edge", "[graph]") {
  const GraphContext g = GraphContext::from_dataset(random_dataset(25, 70, 1));
  const Tensor x = random_tensor({25, 6}, 2);
  for (bool self_loops : {true, false}) {
    for (bool normalize : {true, false}) {
      Json c = config(6, 4);
      c["add_self_loops"] = self_loops;
      c["normalize"] = normalize;
      GcnConv layer(GcnOptions::from_json(c));
      for (auto [name, v] : layer.named_parameters()) {
        if (name == "bias") v.value().copy_from(random_tensor({4}, 3));
      }
      const Tensor y = layer.forward(NodeFeatures(Var(x)), g, 0).value();
      const Tensor ref = naive_gcn(x, parameter(layer, "weight"), parameter(layer, "bias"), g.view(self_loops), normalize);
      INFO("self loops " << self_loops << ", normalize " << normalize);
      CHECK(max_abs_diff(y, ref) < 1e-5f);
    }
  }
}

TEST_CASE("gcn sees the degree of a node where attention cannot", "[graph]") {
  // A star: hub 0 and leaves 1..4, every node with the same feature. Normalised (and summed)
  // propagation gives the hub and a leaf different outputs; any softmax over neighbours
  // averages copies of one vector and gives every node the same.
  NodeDataset star;
  star.num_nodes = 5;
  star.edge_src = {1, 2, 3, 4};
  star.edge_dst = {0, 0, 0, 0};
  star.labels.assign(5, 0);
  star.num_classes = 1;
  const GraphContext g = GraphContext::from_dataset(star);
  GcnConv layer(GcnOptions::from_json(config(1, 1)));
  const Tensor y = layer.forward(NodeFeatures(Var(Tensor({5, 1}, 1.0f))), g, 0).value();
  const float w = parameter(layer, "weight")[0];
  // Hub: 1/5 (itself) + 4 / sqrt(5 * 2); leaf: 1/2 (itself) + 1 / sqrt(2 * 5).
  CHECK(y[0] == Approx(w * (0.2 + 4.0 / std::sqrt(10.0))).epsilon(1e-5));
  CHECK(y[1] == Approx(w * (0.5 + 1.0 / std::sqrt(10.0))).epsilon(1e-5));
  GatConv attention(GatOptions::from_json({{"in_channels", 1}, {"out_channels", 4}, {"heads", 2}, {"seed", 1}}));
  const Tensor a = attention.forward(NodeFeatures(Var(Tensor({5, 1}, 1.0f))), g, 0).value();  // [5, 8]
  for (int64_t k = 0; k < 8; ++k) CHECK(a[k] == Approx(a[8 + k]).margin(1e-6));  // hub = leaf
}

TEST_CASE("gcn gradients on inputs and parameters, dense and sparse input", "[graph][grad]") {
  const GraphContext g = GraphContext::from_dataset(random_dataset(18, 50, 4));
  Json c = config(5, 3);
  c["input_dropout"] = 0.2;
  GcnConv layer(GcnOptions::from_json(c));
  layer.train();
  const Tensor x = random_tensor({18, 5}, 6);
  auto on_x = check_gradients([&](const std::vector<Var>& v) { return layer.forward(NodeFeatures(v[0]), g, 3); }, {x});
  INFO(on_x.report);
  CHECK(on_x.ok);
  auto on_params = check_module_gradients(layer, [&] { return layer.forward(NodeFeatures(Var(x)), g, 3); });
  INFO(on_params.report);
  CHECK(on_params.ok);
  Json sum = config(18, 3);
  sum["normalize"] = false;
  GcnConv featureless(GcnOptions::from_json(sum));
  auto on_sparse = check_module_gradients(
      featureless, [&] { return featureless.forward(NodeFeatures(identity_features(18)), g, 3); });
  INFO(on_sparse.report);
  CHECK(on_sparse.ok);
}

TEST_CASE("a GCN model's training step is bit-identical for 1 and 2 threads", "[graph]") {
  Registry registry;
  register_graph_layers(registry);
  Json first = config(32, 16);
  first["input_dropout"] = 0.5;
  const Json model = {{"layers", {{{"type", "gcn"}, {"config", first}}, {{"type", "gcn"}, {"config", config(16, 4)}}}},
                      {"activation", "relu"}};
  const GraphContext g = GraphContext::from_dataset(random_dataset(3000, 12000, 8));
  const Tensor x = random_tensor({3000, 32}, 9);
  const Tensor seed_grad = random_tensor({3000, 4}, 10);
  const NodeFeatures features = NodeFeatures(Var(x));
  const auto one = attend::testing::model_output_and_gradients(model, registry, g, features, seed_grad, 1);
  const auto two = attend::testing::model_output_and_gradients(model, registry, g, features, seed_grad, 2);
  for (std::size_t i = 0; i < one.size(); ++i) CHECK(bitwise_equal(one[i], two[i]));
}

TEST_CASE("gcn builds through the registry, round-trips its config and refuses bad options", "[graph]") {
  Registry registry;
  register_graph_layers(registry);
  auto module = registry.create("gcn", config(4, 2));
  CHECK(module->type_name() == "gcn");
  CHECK(GcnOptions::from_json(module->config()).to_json() == module->config());
  Json no_bias = config(4, 2);
  no_bias["bias"] = false;
  CHECK(registry.create("gcn", no_bias)->named_parameters().size() == 1);
  Json unknown = config(4, 2);
  unknown["improved"] = true;
  CHECK_THROWS_WITH(registry.create("gcn", unknown), Catch::Matchers::Contains("improved"));
  Json dropout = config(4, 2);
  dropout["input_dropout"] = 1.0;
  CHECK_THROWS_AS(registry.create("gcn", dropout), InputError);
  CHECK_THROWS_AS(registry.create("gcn", config(0, 2)), InputError);
}

TEST_CASE("gcn's init_gain scales the Glorot weights and nothing else", "[graph]") {
  Registry registry;
  register_graph_layers(registry);
  Json gained = config(4, 3);
  gained["init_gain"] = 1.5;
  const Tensor plain = parameter(*registry.create("gcn", config(4, 3)), "weight");  // [4, 3]
  const Tensor scaled = parameter(*registry.create("gcn", gained), "weight");       // [4, 3]
  for (int64_t k = 0; k < plain.numel(); ++k) CHECK(scaled[k] == plain[k] * 1.5f);
  CHECK(GcnOptions::from_json(registry.create("gcn", gained)->config()).init_gain == 1.5f);
  gained["init_gain"] = 0.0;
  CHECK_THROWS_AS(registry.create("gcn", gained), InputError);
}
