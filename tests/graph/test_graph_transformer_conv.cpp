#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include "attend/core/error.hpp"
#include "attend/core/registry.hpp"
#include "attend/graph/builtin_layers.hpp"
#include "attend/graph/layers/graph_transformer_conv.hpp"
#include "grad_check.hpp"
#include "random_graphs.hpp"

using namespace attend;
using namespace attend::graph;
using attend::testing::check_gradients;
using attend::testing::check_module_gradients;
using attend::testing::random_dataset;
using attend::testing::random_tensor;

namespace {

// x [N, F] W [F, K] (+ b [K]) in double.
std::vector<double> affine(const Tensor& x, const Tensor& w, const Tensor* b) {
  const int64_t n = x.dim(0), f = x.dim(1), k = w.dim(1);
  std::vector<double> y(n * k, 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t q = 0; q < k; ++q) {
      double s = b ? (*b)[q] : 0.0;
      for (int64_t j = 0; j < f; ++j) s += double(x[i * f + j]) * w[j * k + q];
      y[i * k + q] = s;
    }
  return y;
}

std::map<std::string, Tensor> values_of(const Module& m) {
  std::map<std::string, Tensor> p;
  for (const auto& [name, v] : m.named_parameters()) p[name] = v.value();
  return p;
}

// TransformerConv (Shi et al. 2021, Eq. 3-7) edge by edge, in double; edge features and the
// gated skip on.
Tensor naive_transformer(const Tensor& x, std::map<std::string, Tensor> p, const GraphView& view, int64_t heads,
                         int64_t c, bool concat) {
  const int64_t n = x.dim(0), hc = heads * c, width = concat ? hc : c;
  const auto q = affine(x, p["query_weight"], &p["query_bias"]);
  const auto k = affine(x, p["key_weight"], &p["key_bias"]);
  const auto v = affine(x, p["value_weight"], &p["value_bias"]);
  const auto ef = affine(view.edge_features, p["edge_weight"], nullptr);  // [E, HC]
  std::vector<double> attn(n * width, 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t h = 0; h < heads; ++h) {
      std::vector<double> score;
      std::vector<int64_t> edges;
      for (int64_t e = 0; e < view.num_edges(); ++e) {
        if (view.dst[e] != i) continue;
        double s = 0;
        for (int64_t d = 0; d < c; ++d) {
          s += q[i * hc + h * c + d] * (k[view.src[e] * hc + h * c + d] + ef[e * hc + h * c + d]);
        }
        score.push_back(s / std::sqrt(double(c)));
        edges.push_back(e);
      }
      double m = -1e300, z = 0;
      for (double s : score) m = std::max(m, s);
      for (double& s : score) z += (s = std::exp(s - m));
      for (int64_t d = 0; d < c; ++d) {
        double acc = 0;
        for (std::size_t t = 0; t < edges.size(); ++t) {
          const int64_t e = edges[t];
          acc += score[t] / z * (v[view.src[e] * hc + h * c + d] + ef[e * hc + h * c + d]);
        }
        attn[i * width + (concat ? h * c + d : d)] += concat ? acc : acc / heads;
      }
    }
  const auto skip = affine(x, p["skip_weight"], &p["skip_bias"]);
  Tensor out({n, width});
  for (int64_t i = 0; i < n; ++i) {
    double logit = 0;
    for (int64_t d = 0; d < width; ++d) {
      const double a = attn[i * width + d], r = skip[i * width + d];
      logit += p["beta_weight"][d] * a + p["beta_weight"][width + d] * r + p["beta_weight"][2 * width + d] * (a - r);
    }
    const double b = 1.0 / (1.0 + std::exp(-logit));
    for (int64_t d = 0; d < width; ++d) {
      out[i * width + d] = float(b * skip[i * width + d] + (1 - b) * attn[i * width + d]);
    }
  }
  return out;
}

Json config(int64_t in, int64_t out, int64_t heads, bool concat) {
  return {{"in_channels", in}, {"out_channels", out}, {"heads", heads}, {"concat", concat},
          {"beta", true}, {"edge_dim", 3}, {"seed", 8}};
}

GraphContext context_with_edge_features(int64_t n, int64_t edges, uint64_t seed) {
  GraphContext g = GraphContext::from_dataset(random_dataset(n, edges, seed));
  g.set_edge_features(random_tensor({g.plain().num_edges(), 3}, seed + 1));
  return g;
}

}  // namespace

TEST_CASE("graph_transformer layer equals TransformerConv computed edge by edge", "[graph]") {
  const GraphContext g = context_with_edge_features(20, 50, 1);
  const Tensor x = random_tensor({20, 5}, 2);
  for (bool concat : {true, false}) {
    GraphTransformerConv layer(GraphTransformerOptions::from_json(config(5, 4, 2, concat)));
    layer.eval();
    for (auto [name, v] : layer.named_parameters()) {  // biases the reference must add
      if (name.find("bias") != std::string::npos) v.value().copy_from(random_tensor(v.shape(), 3));
    }
    const Tensor y = layer.forward(NodeFeatures(Var(x)), g, 0).value();
    const Tensor ref = naive_transformer(x, values_of(layer), g.plain(), 2, 4, concat);
    INFO("concat " << concat);
    CHECK(max_abs_diff(y, ref) < 1e-5f);
  }
}

TEST_CASE("graph_transformer: self-loops get zero edge features, and missing features are an error", "[graph]") {
  GraphContext g = context_with_edge_features(12, 30, 3);
  const GraphView& looped = g.looped();
  REQUIRE(looped.has_edge_features());
  for (int64_t e = 0; e < looped.num_edges(); ++e) {
    if (looped.src[e] != looped.dst[e]) continue;
    for (int64_t d = 0; d < 3; ++d) CHECK(looped.edge_features.at({e, d}) == 0.0f);
  }
  const GraphContext bare = GraphContext::from_dataset(random_dataset(12, 30, 3));
  GraphTransformerConv layer(GraphTransformerOptions::from_json(config(4, 2, 1, true)));
  const NodeFeatures x(Var(random_tensor({12, 4}, 4)));
  CHECK_THROWS_WITH(layer.forward(x, bare, 0), Catch::Matchers::Contains("edge_dim is 3 but the graph has no edge features"));
  Json plain = config(4, 2, 1, true);
  plain["edge_dim"] = nullptr;  // PyG's None
  plain["beta"] = false;
  GraphTransformerConv no_edges(GraphTransformerOptions::from_json(plain));
  CHECK(no_edges.forward(x, bare, 0).shape() == Shape{12, 2});
  CHECK_THROWS_AS(g.set_edge_features(random_tensor({3, 3}, 5)), Error);
}

TEST_CASE("graph_transformer gradients on inputs and parameters, with dropout", "[graph][grad]") {
  const GraphContext g = context_with_edge_features(16, 40, 6);
  Json c = config(5, 3, 2, true);
  c["dropout"] = 0.3;
  c["input_dropout"] = 0.2;
  c["add_self_loops"] = true;
  GraphTransformerConv layer(GraphTransformerOptions::from_json(c));
  const Tensor x = random_tensor({16, 5}, 7);
  auto on_x = check_gradients([&](const std::vector<Var>& v) { return layer.forward(NodeFeatures(v[0]), g, 11); }, {x});
  INFO(on_x.report);
  CHECK(on_x.ok);
  auto on_params = check_module_gradients(layer, [&] { return layer.forward(NodeFeatures(Var(x)), g, 11); });
  INFO(on_params.report);
  CHECK(on_params.ok);
}

TEST_CASE("graph_transformer builds through the registry", "[graph]") {
  Registry registry;
  register_graph_layers(registry);
  auto module = registry.create("graph_transformer", config(5, 4, 2, false));
  CHECK(module->type_name() == "graph_transformer");
  CHECK(GraphTransformerOptions::from_json(module->config()).to_json() == module->config());
  Json bad = config(5, 4, 2, false);
  bad["root_weight"] = false;
  CHECK_THROWS_WITH(registry.create("graph_transformer", bad), Catch::Matchers::Contains("beta needs root_weight"));
}
