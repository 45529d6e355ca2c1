#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include "attend/core/error.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/random.hpp"
#include "attend/core/registry.hpp"
#include "attend/graph/builtin_layers.hpp"
#include "attend/graph/layers/gat_conv.hpp"
#include "attend/graph/node_classifier.hpp"
#include "grad_check.hpp"
#include "model_gradients.hpp"
#include "random_graphs.hpp"

using namespace attend;
using namespace attend::graph;
using attend::testing::check_gradients;
using attend::testing::check_module_gradients;
using attend::testing::random_dataset;
using attend::testing::random_tensor;

namespace {
// GAT written plainly from the paper, edge by edge, in double.
// With `b_src`/`b_dst` ([heads]), the attention terms get the biases of the authors' code.
Tensor naive_gat(const Tensor& x, const Tensor& w, const Tensor& a_src, const Tensor& a_dst,
                 const GraphView& view, int64_t heads, int64_t c, bool concat, const Tensor* b_src = nullptr,
                 const Tensor* b_dst = nullptr) {
  const int64_t n = x.dim(0), f = x.dim(1);
  std::vector<double> h(n * heads * c, 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < heads * c; ++k)
      for (int64_t j = 0; j < f; ++j) h[i * heads * c + k] += double(x[i * f + j]) * w[j * heads * c + k];
  Tensor out(concat ? Shape{n, heads * c} : Shape{n, c});
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t hd = 0; hd < heads; ++hd) {
      std::vector<double> score;
      std::vector<int64_t> from;
      for (int64_t e = 0; e < view.num_edges(); ++e) {
        if (view.dst[e] != i) continue;
        double s = b_src ? double((*b_src)[hd]) + (*b_dst)[hd] : 0.0;
        for (int64_t k = 0; k < c; ++k) {
          s += a_src[hd * c + k] * h[(view.src[e] * heads + hd) * c + k] + a_dst[hd * c + k] * h[(i * heads + hd) * c + k];
        }
        score.push_back(s > 0 ? s : 0.2 * s);
        from.push_back(view.src[e]);
      }
      double m = -1e300, z = 0;
      for (double s : score) m = std::max(m, s);
      for (double& s : score) z += (s = std::exp(s - m));
      for (int64_t k = 0; k < c; ++k) {
        double acc = 0;
        for (std::size_t e = 0; e < score.size(); ++e) acc += score[e] / z * h[(from[e] * heads + hd) * c + k];
        if (concat) {
          out[i * heads * c + hd * c + k] = float(acc);
        } else {
          out[i * c + k] += float(acc / heads);
        }
      }
    }
  }
  return out;
}

Json gat_config(int64_t in, int64_t out, int64_t heads, bool concat) {
  return {{"in_channels", in}, {"out_channels", out}, {"heads", heads}, {"concat", concat}, {"seed", 3}};
}
}  // namespace

TEST_CASE("gat layer equals the paper's formula computed edge by edge", "[graph]") {
  const GraphContext g = GraphContext::from_dataset(random_dataset(30, 70, 1));
  const Tensor x = random_tensor({30, 6}, 2);
  for (bool concat : {true, false}) {
    GatConv layer(GatOptions::from_json(gat_config(6, 4, 3, concat)));
    layer.eval();
    const auto params = layer.named_parameters();  // weight, att_src, att_dst, bias (zeros)
    const Tensor y = layer.forward(NodeFeatures(Var(x)), g, 0).value();
    const Tensor ref = naive_gat(x, params[0].second.value(), params[1].second.value(),
                                 params[2].second.value(), g.looped(), 3, 4, concat);
    CHECK(max_abs_diff(y, ref) < 1e-5f);
  }
}

TEST_CASE("gat attention biases enter the logits as in the authors' code", "[graph]") {
  const GraphContext g = GraphContext::from_dataset(random_dataset(30, 70, 21));
  const Tensor x = random_tensor({30, 6}, 22);
  Json config = gat_config(6, 4, 3, true);
  config["attention_bias"] = true;
  GatConv layer(GatOptions::from_json(config));
  layer.eval();
  std::map<std::string, Tensor> p;
  for (auto [name, v] : layer.named_parameters()) {
    if (name == "att_src_bias" || name == "att_dst_bias") v.value().copy_from(random_tensor(v.shape(), name.size()));
    p[name] = v.value();
  }
  REQUIRE(p.count("att_src_bias") == 1);
  const Tensor y = layer.forward(NodeFeatures(Var(x)), g, 0).value();
  const Tensor ref = naive_gat(x, p["weight"], p["att_src"], p["att_dst"], g.looped(), 3, 4, true, &p["att_src_bias"],
                               &p["att_dst_bias"]);
  CHECK(max_abs_diff(y, ref) < 1e-5f);
  // The biases shift the LeakyReLU's argument, so they change the result.
  const Tensor plain = naive_gat(x, p["weight"], p["att_src"], p["att_dst"], g.looped(), 3, 4, true);
  CHECK(max_abs_diff(y, plain) > 1e-4f);
}

TEST_CASE("gat per-head input masks and value dropout of the authors' code", "[graph]") {
  const GraphContext g = GraphContext::from_dataset(random_dataset(40, 120, 23));
  const Tensor x = random_tensor({40, 6}, 24);
  // Two heads with the same weights: equal outputs unless their inputs are masked differently.
  auto run = [&](bool per_head, float value_dropout, bool training, AttentionExport* att = nullptr) {
    Json config = gat_config(6, 4, 2, true);
    config["input_dropout"] = 0.5;
    config["input_dropout_per_head"] = per_head;
    config["value_dropout"] = value_dropout;
    GatConv layer(GatOptions::from_json(config));
    auto params = layer.named_parameters();
    for (auto [name, v] : params) {
      if (name == "bias") continue;
      Tensor& t = v.value();  // weight [6, 2 * 4] and att_* [2, 4]: head 1 copies head 0
      const int64_t rows = name == "weight" ? 6 : 1;
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t k = 0; k < 4; ++k) t[r * 8 + 4 + k] = t[r * 8 + k];
    }
    if (training) layer.train(); else layer.eval();
    return layer.forward(NodeFeatures(Var(x)), g, 77, att).value();  // [40, 8]
  };
  auto head_gap = [](const Tensor& y) {
    float gap = 0;
    for (int64_t i = 0; i < 40; ++i)
      for (int64_t k = 0; k < 4; ++k) gap = std::max(gap, std::abs(y[i * 8 + k] - y[i * 8 + 4 + k]));
    return gap;
  };
  CHECK(head_gap(run(false, 0.0f, true)) < 1e-6f);  // one shared mask
  CHECK(head_gap(run(true, 0.0f, true)) > 1e-3f);   // a mask per head
  CHECK(max_abs_diff(run(true, 0.3f, false), run(false, 0.0f, false)) == 0.0f);  // no dropout in eval
  // Value dropout leaves the attention weights alone (they come from the undropped h).
  AttentionExport with, without;
  const Tensor a = run(true, 0.3f, true, &with), b = run(true, 0.0f, true, &without);
  CHECK(max_abs_diff(with.weights, without.weights) == 0.0f);
  CHECK(max_abs_diff(a, b) > 1e-3f);
}

TEST_CASE("gat gradients with the authors' options (per-head masks, value dropout, attention biases)",
          "[graph][grad]") {
  const GraphContext g = GraphContext::from_dataset(random_dataset(25, 60, 25));
  Json config = gat_config(7, 3, 2, true);
  config["dropout"] = 0.3;
  config["input_dropout"] = 0.2;
  config["input_dropout_per_head"] = true;
  config["value_dropout"] = 0.2;
  config["attention_bias"] = true;
  GatConv layer(GatOptions::from_json(config));
  const Tensor x = random_tensor({25, 7}, 26);
  attend::testing::GradCheckOptions fine;
  fine.eps = 2e-3f;
  auto on_x = check_gradients([&](const std::vector<Var>& v) { return layer.forward(NodeFeatures(v[0]), g, 11); }, {x},
                              fine);
  INFO(on_x.report);
  CHECK(on_x.ok);
  auto sparse = std::make_shared<const SparseMatrix>(SparseMatrix::from_dense(x));
  auto on_params = check_module_gradients(layer, [&] { return layer.forward(NodeFeatures(sparse), g, 11); }, fine);
  INFO(on_params.report);
  CHECK(on_params.ok);
}

TEST_CASE("gat layer gradients, dense and sparse input, with dropout", "[graph][grad]") {
  const GraphContext g = GraphContext::from_dataset(random_dataset(25, 60, 4));
  Json config = gat_config(7, 3, 2, true);
  config["dropout"] = 0.3;
  config["input_dropout"] = 0.2;
  config["residual"] = true;
  GatConv layer(GatOptions::from_json(config));
  const Tensor x = random_tensor({25, 7}, 5);
  auto on_x = check_gradients([&](const std::vector<Var>& v) { return layer.forward(NodeFeatures(v[0]), g, 11); }, {x});
  INFO(on_x.report);
  CHECK(on_x.ok);
  auto sparse = std::make_shared<const SparseMatrix>(SparseMatrix::from_dense(x));
  // A smaller step than the default: a step of 1e-2 can carry a score across LeakyReLU's kink.
  attend::testing::GradCheckOptions fine;
  fine.eps = 2e-3f;
  auto on_params = check_module_gradients(layer, [&] { return layer.forward(NodeFeatures(sparse), g, 11); }, fine);
  INFO(on_params.report);
  CHECK(on_params.ok);
}

TEST_CASE("node classifier builds through the registry and checks its layers", "[graph]") {
  Registry registry;
  register_graph_layers(registry);
  const Json config = {{"layers", {{{"type", "gat"}, {"config", gat_config(6, 4, 2, true)}},
                                   {{"type", "gat"}, {"config", gat_config(8, 3, 1, false)}}}},
                       {"activation", "elu"}};
  NodeClassifier model(config, registry);
  const auto names = model.named_parameters();
  CHECK(names.front().first == "layers.0.weight");
  const GraphContext g = GraphContext::from_dataset(random_dataset(20, 40, 6));
  CHECK(model.forward(NodeFeatures(Var(random_tensor({20, 6}, 7))), g, 0).shape() == Shape{20, 3});

  Json bad = config;
  bad["layers"][1]["config"]["in_channels"] = 5;
  CHECK_THROWS_WITH(NodeClassifier(bad, registry), Catch::Matchers::Contains("takes 5 features but layer 0 gives 8"));
  Json unknown = config;
  unknown["layers"][0]["type"] = "gcn_typo";
  CHECK_THROWS_WITH(NodeClassifier(unknown, registry), Catch::Matchers::Contains("unknown layer 'gcn_typo'"));
}

TEST_CASE("a GAT model's training step is bit-identical for 1 and 2 threads", "[graph]") {
  Registry registry;
  register_graph_layers(registry);
  Json first = gat_config(64, 8, 8, true);
  first["dropout"] = 0.6;
  first["input_dropout"] = 0.6;
  const Json config = {{"layers", {{{"type", "gat"}, {"config", first}},
                                   {{"type", "gat"}, {"config", gat_config(64, 5, 1, false)}}}}};
  const GraphContext g = GraphContext::from_dataset(random_dataset(3000, 12000, 8));
  const Tensor x = random_tensor({3000, 64}, 9);
  const Tensor seed_grad = random_tensor({3000, 5}, 10);
  const NodeFeatures features = NodeFeatures(Var(x));
  const auto one = attend::testing::model_output_and_gradients(config, registry, g, features, seed_grad, 1);
  const auto two = attend::testing::model_output_and_gradients(config, registry, g, features, seed_grad, 2);
  for (std::size_t i = 0; i < one.size(); ++i) CHECK(bitwise_equal(one[i], two[i]));
}

TEST_CASE("gat glorot_per_head draws each head with its own Glorot limits", "[graph]") {
  // 40 inputs, 16 heads of 8: W limit sqrt(6 / (40 + 128)) whole, sqrt(6 / (40 + 8)) per head;
  // att limit sqrt(6 / (16 + 8)) = 0.5 whole, sqrt(6 / (8 + 1)) = 0.816 per head.
  auto largest = [](bool per_head) {
    Json config = gat_config(40, 8, 16, true);
    config["glorot_per_head"] = per_head;
    const GatConv layer(GatOptions::from_json(config));
    std::map<std::string, float> m;
    for (const auto& [name, v] : layer.named_parameters()) {
      float a = 0.0f;
      for (float x : v.value()) a = std::max(a, std::abs(x));
      m[name] = a;
    }
    return m;
  };
  const auto whole = largest(false), per_head = largest(true);
  CHECK(whole.at("weight") <= std::sqrt(6.0f / 168.0f));
  CHECK(per_head.at("weight") > std::sqrt(6.0f / 168.0f));
  CHECK(per_head.at("weight") <= std::sqrt(6.0f / 48.0f));
  CHECK(whole.at("att_src") <= 0.5f);
  CHECK(per_head.at("att_src") > 0.5f);
  CHECK(per_head.at("att_dst") <= std::sqrt(6.0f / 9.0f));
  CHECK(GatOptions::from_json(GatOptions::from_json(gat_config(4, 2, 2, true)).to_json()).glorot_per_head == false);
}
