#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include "attend/core/error.hpp"
#include "attend/core/registry.hpp"
#include "attend/graph/builtin_layers.hpp"
#include "attend/graph/layers/graphormer_conv.hpp"
#include "grad_check.hpp"
#include "random_graphs.hpp"

using namespace attend;
using namespace attend::graph;
using attend::testing::check_gradients;
using attend::testing::check_module_gradients;
using attend::testing::random_dataset;
using attend::testing::random_tensor;

namespace {

std::map<std::string, Tensor> values_of(const Module& m) {
  std::map<std::string, Tensor> p;
  for (const auto& [name, v] : m.named_parameters()) p[name] = v.value();
  return p;
}

std::vector<double> matmul(const std::vector<double>& a, int64_t n, int64_t k, const Tensor& w) {
  const int64_t m = w.dim(1);
  std::vector<double> y(n * m, 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t q = 0; q < k; ++q)
      for (int64_t j = 0; j < m; ++j) y[i * m + j] += a[i * k + q] * w[q * m + j];
  return y;
}

// Graphormer attention (Ying et al. 2021, Eq. 5-8) over all pairs, in double; distances by
// Floyd-Warshall on the undirected plain view.
Tensor naive_graphormer(const Tensor& x, std::map<std::string, Tensor> p, const GraphView& view, int64_t heads,
                        int64_t d, int64_t max_distance, int64_t max_degree) {
  const int64_t n = x.dim(0), f = x.dim(1), c = d / heads;
  const int64_t far = 1 << 20;
  std::vector<int64_t> dist(n * n, far), degree(n, 0);
  for (int64_t i = 0; i < n; ++i) dist[i * n + i] = 0;
  for (int64_t e = 0; e < view.num_edges(); ++e) {
    const int64_t a = view.src[e], b = view.dst[e];
    if (a != b) dist[a * n + b] = dist[b * n + a] = 1;
    ++degree[b];
  }
  for (int64_t k = 0; k < n; ++k)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) dist[i * n + j] = std::min(dist[i * n + j], dist[i * n + k] + dist[k * n + j]);
  std::vector<double> xd(x.begin(), x.end());
  std::vector<double> h = matmul(xd, n, f, p["in_weight"]);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < d; ++k) h[i * d + k] += p["degree_embedding"][std::min(degree[i], max_degree) * d + k];
  const auto q = matmul(h, n, d, p["query_weight"]), kk = matmul(h, n, d, p["key_weight"]),
             v = matmul(h, n, d, p["value_weight"]);
  std::vector<double> attn(n * d, 0.0);
  for (int64_t hd = 0; hd < heads; ++hd)
    for (int64_t i = 0; i < n; ++i) {
      std::vector<double> s(n);
      double m = -1e300, z = 0;
      for (int64_t j = 0; j < n; ++j) {
        const int64_t phi = std::min(dist[i * n + j], max_distance + 1);
        double dot = 0;
        for (int64_t t = 0; t < c; ++t) dot += q[i * d + hd * c + t] * kk[j * d + hd * c + t];
        s[j] = dot / std::sqrt(double(c)) + p["spatial_bias"][phi * heads + hd];
        m = std::max(m, s[j]);
      }
      for (double& e : s) z += (e = std::exp(e - m));
      for (int64_t j = 0; j < n; ++j)
        for (int64_t t = 0; t < c; ++t) attn[i * d + hd * c + t] += s[j] / z * v[j * d + hd * c + t];
    }
  const auto o = matmul(attn, n, d, p["out_weight"]);
  Tensor out({n, d});
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < d; ++k) out[i * d + k] = float(o[i * d + k] + h[i * d + k] + p["bias"][k]);
  return out;
}

Json config(int64_t in, int64_t out, int64_t heads) {
  return {{"in_channels", in}, {"out_channels", out}, {"heads", heads}, {"max_distance", 2},
          {"max_degree", 3}, {"seed", 6}};
}

}  // namespace

TEST_CASE("graphormer layer equals dense attention with distance bias computed naively", "[graph]") {
  // Two components (so some pairs are unreachable), paths longer than max_distance.
  NodeDataset d = random_dataset(14, 0, 1);
  for (int64_t i = 0; i + 1 < 9; ++i) {
    d.edge_src.push_back(i);
    d.edge_dst.push_back(i + 1);
  }
  for (auto [a, b] : {std::pair<int64_t, int64_t>{2, 6}, {10, 11}, {11, 12}, {12, 10}, {0, 0}}) {
    d.edge_src.push_back(a);
    d.edge_dst.push_back(b);
  }
  const GraphContext g = GraphContext::from_dataset(d);
  GraphormerConv layer(GraphormerOptions::from_json(config(5, 6, 2)));
  layer.eval();
  for (auto [name, v] : layer.named_parameters()) {  // larger structural terms than the init's
    if (name == "bias" || name == "spatial_bias" || name == "degree_embedding") {
      v.value().copy_from(random_tensor(v.shape(), 3));
    }
  }
  const Tensor x = random_tensor({14, 5}, 2);
  AttentionExport att;
  const Tensor y = layer.forward(NodeFeatures(Var(x)), g, 0, &att).value();
  const Tensor ref = naive_graphormer(x, values_of(layer), g.plain(), 2, 6, 2, 3);
  CHECK(max_abs_diff(y, ref) < 1e-5f);
  REQUIRE(att.weights.shape() == Shape{14 * 14, 2});
  CHECK(att.view == nullptr);
  for (int64_t i = 0; i < 14; ++i) {
    double total = 0;
    for (int64_t j = 0; j < 14; ++j) total += att.weights.at({i * 14 + j, 1});
    CHECK(total == Approx(1.0).margin(1e-5));
  }
}

TEST_CASE("graphormer gradients on inputs and parameters, with dropout", "[graph][grad]") {
  const GraphContext g = GraphContext::from_dataset(random_dataset(12, 20, 4));
  Json c = config(4, 6, 3);
  c["dropout"] = 0.2;
  c["input_dropout"] = 0.2;
  GraphormerConv layer(GraphormerOptions::from_json(c));
  const Tensor x = random_tensor({12, 4}, 5);
  auto on_x = check_gradients([&](const std::vector<Var>& v) { return layer.forward(NodeFeatures(v[0]), g, 7); }, {x});
  INFO(on_x.report);
  CHECK(on_x.ok);
  auto on_params = check_module_gradients(layer, [&] { return layer.forward(NodeFeatures(Var(x)), g, 7); });
  INFO(on_params.report);
  CHECK(on_params.ok);
}

TEST_CASE("graphormer refuses large graphs and bad options, and builds through the registry", "[graph]") {
  const int64_t n = kGraphormerMaxNodes + 1;
  const GraphContext big = GraphContext::from_dataset(random_dataset(n, 10, 6));
  GraphormerConv layer(GraphormerOptions::from_json(config(3, 4, 2)));
  CHECK_THROWS_WITH(layer.forward(NodeFeatures(Var(random_tensor({n, 3}, 7))), big, 0),
                    Catch::Matchers::Contains("graphormer: " + std::to_string(n) +
                                              " nodes is too many for dense attention (limit"));
  Registry registry;
  register_graph_layers(registry);
  auto module = registry.create("graphormer", config(3, 4, 2));
  CHECK(GraphormerOptions::from_json(module->config()).to_json() == module->config());
  CHECK_THROWS_WITH(registry.create("graphormer", config(3, 5, 2)), Catch::Matchers::Contains("multiple of heads"));
}
