#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include "attend/core/error.hpp"
#include "attend/core/registry.hpp"
#include "attend/graph/builtin_layers.hpp"
#include "attend/graph/layers/gatv2_conv.hpp"
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

std::vector<double> project(const Tensor& x, const Tensor& w) {  // [N, F] x [F, K] in double
  const int64_t n = x.dim(0), f = x.dim(1), k = w.dim(1);
  std::vector<double> y(n * k, 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < f; ++j)
      for (int64_t q = 0; q < k; ++q) y[i * k + q] += double(x[i * f + j]) * w[j * k + q];
  return y;
}

// GATv2 (Brody et al. 2022, Eq. 7) written edge by edge, in double.
Tensor naive_gatv2(const Tensor& x, const Tensor& w_src, const Tensor& w_dst, const Tensor& att,
                   const Tensor& bias, const GraphView& view, int64_t heads, int64_t c, bool concat) {
  const int64_t n = x.dim(0), hc = heads * c;
  const std::vector<double> xs = project(x, w_src), xd = project(x, w_dst);
  Tensor out(concat ? Shape{n, hc} : Shape{n, c});
  const int64_t width = out.dim(1);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t hd = 0; hd < heads; ++hd) {
      std::vector<double> score;
      std::vector<int64_t> from;
      for (int64_t e = 0; e < view.num_edges(); ++e) {
        if (view.dst[e] != i) continue;
        double s = 0;
        for (int64_t k = 0; k < c; ++k) {
          const double z = xs[view.src[e] * hc + hd * c + k] + xd[i * hc + hd * c + k];
          s += att[hd * c + k] * (z > 0 ? z : 0.2 * z);
        }
        score.push_back(s);
        from.push_back(view.src[e]);
      }
      double m = -1e300, sum = 0;
      for (double s : score) m = std::max(m, s);
      for (double& s : score) sum += (s = std::exp(s - m));
      for (int64_t k = 0; k < c; ++k) {
        double acc = 0;
        for (std::size_t e = 0; e < score.size(); ++e) acc += score[e] / sum * xs[from[e] * hc + hd * c + k];
        if (concat) {
          out[i * hc + hd * c + k] = float(acc);
        } else {
          out[i * c + k] += float(acc / heads);
        }
      }
    }
  }
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < width; ++k) out[i * width + k] += bias[k];
  return out;
}

Json config(int64_t in, int64_t out, int64_t heads, bool concat, bool share) {
  return {{"in_channels", in}, {"out_channels", out}, {"heads", heads}, {"concat", concat},
          {"share_weights", share}, {"seed", 5}};
}

std::map<std::string, Var> params_of(const Module& m) {
  std::map<std::string, Var> p;
  for (const auto& [name, v] : m.named_parameters()) p[name] = v;
  return p;
}

}  // namespace

TEST_CASE("gatv2 layer equals the paper's formula computed edge by edge", "[graph]") {
  const GraphContext g = GraphContext::from_dataset(random_dataset(25, 60, 1));
  const Tensor x = random_tensor({25, 5}, 2);
  for (bool concat : {true, false}) {
    for (bool share : {false, true}) {
      GatV2Conv layer(GatV2Options::from_json(config(5, 4, 3, concat, share)));
      layer.eval();
      auto p = params_of(layer);
      for (float& b : p["bias"].value()) b = 0.5f;  // a bias the reference must add
      const Tensor& w_src = share ? p["weight"].value() : p["weight_src"].value();
      const Tensor& w_dst = share ? p["weight"].value() : p["weight_dst"].value();
      CHECK(p.size() == (share ? 3u : 4u));
      const Tensor y = layer.forward(NodeFeatures(Var(x)), g, 0).value();
      const Tensor ref = naive_gatv2(x, w_src, w_dst, p["att"].value(), p["bias"].value(), g.looped(), 3, 4, concat);
      INFO("concat " << concat << ", share_weights " << share);
      CHECK(max_abs_diff(y, ref) < 1e-5f);
    }
  }
}

TEST_CASE("gatv2 layer gradients on inputs and parameters, with dropout and residual", "[graph][grad]") {
  const GraphContext g = GraphContext::from_dataset(random_dataset(20, 50, 4));
  Json c = config(6, 3, 2, true, false);
  c["dropout"] = 0.3;
  c["input_dropout"] = 0.2;
  c["residual"] = true;
  GatV2Conv layer(GatV2Options::from_json(c));
  const Tensor x = random_tensor({20, 6}, 5);
  // Small steps: LeakyReLU kinks sit inside every score.
  attend::testing::GradCheckOptions fine;
  fine.eps = 1e-3f;
  auto on_x = check_gradients([&](const std::vector<Var>& v) { return layer.forward(NodeFeatures(v[0]), g, 11); },
                              {x}, fine);
  INFO(on_x.report);
  CHECK(on_x.ok);
  auto on_params = check_module_gradients(layer, [&] { return layer.forward(NodeFeatures(Var(x)), g, 11); }, fine);
  INFO(on_params.report);
  CHECK(on_params.ok);
  GatV2Conv shared(GatV2Options::from_json(config(6, 3, 2, false, true)));
  auto on_shared = check_module_gradients(shared, [&] { return shared.forward(NodeFeatures(Var(x)), g, 11); }, fine);
  INFO(on_shared.report);
  CHECK(on_shared.ok);
}

TEST_CASE("gatv2 builds through the registry and round-trips its config", "[graph]") {
  Registry registry;
  register_graph_layers(registry);
  const Json c = config(6, 4, 2, true, true);
  auto module = registry.create("gatv2", c);
  CHECK(module->type_name() == "gatv2");
  CHECK(GatV2Options::from_json(module->config()).to_json() == module->config());
  CHECK(module->config()["share_weights"] == true);
  const Json model = {{"layers", {{{"type", "gatv2"}, {"config", c}},
                                  {{"type", "gatv2"}, {"config", config(8, 3, 1, false, false)}}}}};
  NodeClassifier classifier(model, registry);
  const GraphContext g = GraphContext::from_dataset(random_dataset(15, 30, 6));
  std::vector<AttentionExport> att;
  CHECK(classifier.forward(NodeFeatures(Var(random_tensor({15, 6}, 7))), g, 0, &att).shape() == Shape{15, 3});
  REQUIRE(att.size() == 2);
  CHECK(att[0].weights.shape() == Shape{g.looped().num_edges(), 2});
  Json bad = c;
  bad["share_weight"] = true;
  CHECK_THROWS_AS(registry.create("gatv2", bad), InputError);
}
