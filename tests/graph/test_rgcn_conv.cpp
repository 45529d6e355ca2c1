#include <catch2/catch.hpp>

#include <map>

#include "attend/core/error.hpp"
#include "attend/core/registry.hpp"
#include "attend/graph/builtin_layers.hpp"
#include "attend/graph/layers/rgcn_conv.hpp"
#include "attend/graph/node_classifier.hpp"
#include "grad_check.hpp"
#include "random_graphs.hpp"

using namespace attend;
using namespace attend::graph;
using attend::testing::check_gradients;
using attend::testing::check_module_gradients;
using attend::testing::random_tensor;
using attend::testing::random_typed_dataset;

namespace {

std::map<std::string, Tensor> values_of(const Module& m) {
  std::map<std::string, Tensor> p;
  for (const auto& [name, v] : m.named_parameters()) p[name] = v.value();
  return p;
}

/// W_r [in, C] from the layer's parameters: a block of `weight`, or sum_b comp[r, b] V_b.
double relation_weight(std::map<std::string, Tensor>& p, int64_t r, int64_t f, int64_t k, int64_t c,
                       int64_t relations, int64_t bases) {
  if (bases == 0) return p["weight"][f * relations * c + r * c + k];
  double w = 0;
  for (int64_t b = 0; b < bases; ++b) w += double(p["comp"][r * bases + b]) * p["basis"][f * bases * c + b * c + k];
  return w;
}

// R-GCN (Schlichtkrull et al. 2018, Eq. 2) edge by edge, in double.
Tensor naive_rgcn(const Tensor& x, std::map<std::string, Tensor> p, const GraphView& view, int64_t relations,
                  int64_t bases, int64_t c) {
  const int64_t n = x.dim(0), f = x.dim(1);
  std::vector<double> count(n * relations, 0.0);
  for (int64_t e = 0; e < view.num_edges(); ++e) count[view.dst[e] * relations + view.relation[e]] += 1;
  std::vector<double> out(n * c, 0.0);
  for (int64_t e = 0; e < view.num_edges(); ++e) {
    const int64_t i = view.dst[e], j = view.src[e], r = view.relation[e];
    for (int64_t k = 0; k < c; ++k) {
      double m = 0;
      for (int64_t q = 0; q < f; ++q) m += double(x[j * f + q]) * relation_weight(p, r, q, k, c, relations, bases);
      out[i * c + k] += m / count[i * relations + r];
    }
  }
  Tensor y({n, c});
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < c; ++k) {
      double s = out[i * c + k] + p["bias"][k];
      for (int64_t q = 0; q < f; ++q) s += double(x[i * f + q]) * p["root"][q * c + k];
      y[i * c + k] = float(s);
    }
  return y;
}

Json config(int64_t in, int64_t out, int64_t relations, int64_t bases) {
  return {{"in_channels", in}, {"out_channels", out}, {"num_relations", relations}, {"num_bases", bases},
          {"seed", 2}};
}

}  // namespace

TEST_CASE("rgcn layer equals R-GCN computed edge by edge, with and without bases", "[graph]") {
  const GraphContext g = GraphContext::from_dataset(random_typed_dataset(20, 60, 3, 1));
  const int64_t r = g.num_relations();  // 3 relations, 3 inverses, self
  REQUIRE(r == 7);
  const Tensor x = random_tensor({20, 5}, 2);
  for (int64_t bases : {0, 2}) {
    RgcnConv layer(RgcnOptions::from_json(config(5, 4, r, bases)));
    layer.eval();
    for (auto [name, v] : layer.named_parameters()) {
      if (name == "bias") v.value().copy_from(random_tensor({4}, 3));
    }
    const Tensor y = layer.forward(NodeFeatures(Var(x)), g, 0).value();
    const Tensor ref = naive_rgcn(x, values_of(layer), g.plain(), r, bases, 4);
    INFO("bases " << bases);
    CHECK(max_abs_diff(y, ref) < 1e-5f);
  }
}

TEST_CASE("rgcn on featureless nodes: the sparse identity equals the dense identity", "[graph]") {
  const GraphContext g = GraphContext::from_dataset(random_typed_dataset(15, 40, 2, 4));
  RgcnConv layer(RgcnOptions::from_json(config(15, 3, g.num_relations(), 2)));
  Tensor eye({15, 15});
  for (int64_t i = 0; i < 15; ++i) eye.at({i, i}) = 1.0f;
  const Tensor sparse = layer.forward(NodeFeatures(identity_features(15)), g, 0).value();
  const Tensor dense = layer.forward(NodeFeatures(Var(eye)), g, 0).value();
  CHECK(max_abs_diff(sparse, dense) < 1e-6f);
}

TEST_CASE("rgcn gradients on inputs and parameters", "[graph][grad]") {
  const GraphContext g = GraphContext::from_dataset(random_typed_dataset(16, 45, 2, 5));
  Json c = config(6, 3, g.num_relations(), 2);
  c["input_dropout"] = 0.2;
  RgcnConv layer(RgcnOptions::from_json(c));
  const Tensor x = random_tensor({16, 6}, 6);
  auto on_x = check_gradients([&](const std::vector<Var>& v) { return layer.forward(NodeFeatures(v[0]), g, 3); }, {x});
  INFO(on_x.report);
  CHECK(on_x.ok);
  auto on_params = check_module_gradients(layer, [&] { return layer.forward(NodeFeatures(Var(x)), g, 3); });
  INFO(on_params.report);
  CHECK(on_params.ok);
  RgcnConv full(RgcnOptions::from_json(config(6, 3, g.num_relations(), 0)));
  auto on_full = check_module_gradients(full, [&] { return full.forward(NodeFeatures(Var(x)), g, 3); });
  INFO(on_full.report);
  CHECK(on_full.ok);
}

TEST_CASE("rgcn checks relations and builds through the registry", "[graph]") {
  const GraphContext g = GraphContext::from_dataset(random_typed_dataset(10, 30, 3, 7));
  RgcnConv few(RgcnOptions::from_json(config(4, 2, 3, 0)));
  CHECK_THROWS_WITH(few.forward(NodeFeatures(Var(random_tensor({10, 4}, 8))), g, 0),
                    Catch::Matchers::Contains("but the layer has 3 relations"));
  Registry registry;
  register_graph_layers(registry);
  const Json model = {{"layers", {{{"type", "rgcn"}, {"config", config(10, 8, g.num_relations(), 3)}},
                                  {{"type", "rgcn"}, {"config", config(8, 2, g.num_relations(), 0)}}}}};
  NodeClassifier classifier(model, registry);
  CHECK(classifier.forward(NodeFeatures(identity_features(10)), g, 0).shape() == Shape{10, 2});
  auto module = registry.create("rgcn", config(4, 2, 7, 2));
  CHECK(RgcnOptions::from_json(module->config()).to_json() == module->config());
  Json bad = config(4, 2, 7, 2);
  bad["num_relations"] = "auto";  // the caller must resolve it
  CHECK_THROWS_AS(registry.create("rgcn", bad), InputError);
}
