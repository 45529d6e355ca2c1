#include <catch2/catch.hpp>

#include <cmath>

#include "attend/core/error.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/random.hpp"
#include "attend/core/registry.hpp"
#include "attend/graph/builtin_layers.hpp"
#include "attend/graph/layers/gat_conv.hpp"
#include "attend/graph/node_classifier.hpp"
#include "grad_check.hpp"
#include "random_graphs.hpp"

using namespace attend;
using namespace attend::graph;
using attend::testing::check_gradients;
using attend::testing::check_module_gradients;
using attend::testing::random_dataset;
using attend::testing::random_tensor;

namespace {
// GAT written plainly from the paper, edge by edge, in double.
Tensor naive_gat(const Tensor& x, const Tensor& w, const Tensor& a_src, const Tensor& a_dst,
                 const GraphView& view, int64_t heads, int64_t c, bool concat) {
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
        double s = 0;
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
  auto run = [&](int threads) {
    set_num_threads(threads);
    NodeClassifier model(config, registry);
    Var y = model.forward(NodeFeatures(Var(x)), g, 42);
    y.backward(seed_grad);
    std::vector<Tensor> out{y.value()};
    for (const auto& [name, p] : model.named_parameters()) out.push_back(p.grad());
    return out;
  };
  const int before = num_threads();
  const auto one = run(1), two = run(2);
  set_num_threads(before);
  for (std::size_t i = 0; i < one.size(); ++i) CHECK(bitwise_equal(one[i], two[i]));
}
