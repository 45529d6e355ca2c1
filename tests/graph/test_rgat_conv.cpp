#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <tuple>

#include "attend/core/parallel.hpp"
#include "attend/core/error.hpp"
#include "attend/core/registry.hpp"
#include "attend/graph/builtin_layers.hpp"
#include "attend/graph/layers/rgat_conv.hpp"
#include "attend/graph/node_classifier.hpp"
#include "grad_check.hpp"
#include "model_gradients.hpp"
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

// W_r x_v [H*C] in double, with W_r a block of `weight` or sum_b comp[r, b] V_b.
std::vector<double> relation_project(const Tensor& x, std::map<std::string, Tensor>& p, int64_t v, int64_t r,
                                     int64_t hc, int64_t relations, int64_t bases) {
  const int64_t f = x.dim(1);
  std::vector<double> g(hc, 0.0);
  for (int64_t q = 0; q < f; ++q)
    for (int64_t k = 0; k < hc; ++k) {
      double w = 0;
      if (bases == 0) {
        w = p["weight"][q * relations * hc + r * hc + k];
      } else {
        for (int64_t b = 0; b < bases; ++b) w += double(p["comp"][r * bases + b]) * p["basis"][q * bases * hc + b * hc + k];
      }
      g[k] += double(x[v * f + q]) * w;
    }
  return g;
}

// Relational attention (Busbridge et al. 2019, Eq. 3-6), edge by edge: additive or
// multiplicative logits; one softmax over all in-edges of i (across-relation) or one per
// relation r of those edges (within-relation), the groups' sums added.
Tensor naive_rgat(const Tensor& x, std::map<std::string, Tensor> p, const GraphView& view, int64_t relations,
                  int64_t bases, int64_t heads, int64_t c, bool concat, bool within = false,
                  bool multiplicative = false) {
  const int64_t n = x.dim(0), hc = heads * c, width = concat ? hc : c;
  Tensor out({n, width});
  for (int64_t i = 0; i < n; ++i)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t group = 0; group < (within ? relations : 1); ++group) {
        std::vector<double> score;
        std::vector<std::vector<double>> message;
        for (int64_t e = 0; e < view.num_edges(); ++e) {
          if (view.dst[e] != i || (within && view.relation[e] != group)) continue;
          const int64_t r = view.relation[e];
          const auto gj = relation_project(x, p, view.src[e], r, hc, relations, bases);
          const auto gi = relation_project(x, p, i, r, hc, relations, bases);
          double q = 0, k = 0;
          for (int64_t t = 0; t < c; ++t) {
            q += p["att_dst"][h * c + t] * gi[h * c + t];
            k += p["att_src"][h * c + t] * gj[h * c + t];
          }
          const double s = multiplicative ? q * k : q + k;
          score.push_back(multiplicative || s > 0 ? s : 0.2 * s);
          message.push_back(gj);
        }
        double m = -1e300, z = 0;
        for (double s : score) m = std::max(m, s);
        for (double& s : score) z += (s = std::exp(s - m));
        for (int64_t k = 0; k < c; ++k) {
          double acc = 0;
          for (std::size_t t = 0; t < score.size(); ++t) acc += score[t] / z * message[t][h * c + k];
          out[i * width + (concat ? h * c + k : k)] += float(concat ? acc : acc / heads);
        }
      }
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < width; ++k) out[i * width + k] += p["bias"][k];
  return out;
}

Json config(int64_t in, int64_t out, int64_t relations, int64_t bases, int64_t heads, bool concat) {
  return {{"in_channels", in}, {"out_channels", out}, {"num_relations", relations}, {"num_bases", bases},
          {"heads", heads}, {"concat", concat}, {"seed", 4}};
}

}  // namespace

TEST_CASE("rgat layer equals relational attention computed edge by edge", "[graph]") {
  const GraphContext g = GraphContext::from_dataset(random_typed_dataset(18, 50, 3, 1));
  const int64_t r = g.num_relations();
  const Tensor x = random_tensor({18, 5}, 2);
  for (int64_t bases : {0, 3}) {
    for (bool concat : {true, false}) {
      RgatConv layer(RgatOptions::from_json(config(5, 3, r, bases, 2, concat)));
      layer.eval();
      for (auto [name, v] : layer.named_parameters()) {
        if (name == "bias") v.value().copy_from(random_tensor(v.shape(), 3));
      }
      Tensor y;
      AttentionExport att;
      y = layer.forward(NodeFeatures(Var(x)), g, 0, &att).value();
      const Tensor ref = naive_rgat(x, values_of(layer), g.looped(), r, bases, 2, 3, concat);
      INFO("bases " << bases << ", concat " << concat);
      CHECK(max_abs_diff(y, ref) < 1e-5f);
      // The exported weights sum to one over the in-edges of each node and head.
      REQUIRE(att.view == &g.looped());
      REQUIRE(att.weights.shape() == Shape{g.looped().num_edges(), 2});
      std::vector<double> total(18 * 2, 0.0);
      for (int64_t e = 0; e < att.view->num_edges(); ++e)
        for (int64_t h = 0; h < 2; ++h) total[att.view->dst[e] * 2 + h] += att.weights.at({e, h});
      for (double t : total) CHECK(t == Approx(1.0).margin(1e-5));
    }
  }
}

TEST_CASE("rgat within-relation and multiplicative modes equal the edge-by-edge reference", "[graph]") {
  const GraphContext g = GraphContext::from_dataset(random_typed_dataset(18, 60, 3, 11));
  const int64_t r = g.num_relations();
  const Tensor x = random_tensor({18, 5}, 12);
  for (bool within : {false, true}) {
    for (bool multiplicative : {false, true}) {
      Json c = config(5, 3, r, 2, 2, true);
      c["attention_mechanism"] = within ? "within-relation" : "across-relation";
      c["attention_mode"] = multiplicative ? "multiplicative-self-attention" : "additive-self-attention";
      RgatConv layer(RgatOptions::from_json(c));
      layer.eval();
      for (auto [name, v] : layer.named_parameters()) {
        if (name == "bias") v.value().copy_from(random_tensor(v.shape(), 3));
      }
      AttentionExport att;
      const Tensor y = layer.forward(NodeFeatures(Var(x)), g, 0, &att).value();
      const Tensor ref = naive_rgat(x, values_of(layer), g.looped(), r, 2, 2, 3, true, within, multiplicative);
      INFO("within " << within << ", multiplicative " << multiplicative);
      CHECK(max_abs_diff(y, ref) < 1e-5f);
      // Within-relation weights sum to one per (node, relation, head) group.
      std::map<std::tuple<int64_t, int64_t, int64_t>, double> total;
      for (int64_t e = 0; e < att.view->num_edges(); ++e)
        for (int64_t h = 0; h < 2; ++h)
          total[{att.view->dst[e], within ? att.view->relation[e] : 0, h}] += att.weights.at({e, h});
      for (const auto& [key, t] : total) CHECK(t == Approx(1.0).margin(1e-5));
    }
  }
}

TEST_CASE("rgat within-relation with zero-initialised attention is R-GCN's mean aggregation", "[graph]") {
  Registry registry;
  register_graph_layers(registry);
  const GraphContext g = GraphContext::from_dataset(random_typed_dataset(20, 70, 3, 13));
  const int64_t r = g.num_relations();
  const Tensor x = random_tensor({20, 6}, 14);
  for (int64_t bases : {0, 2}) {
    Json c = config(6, 4, r, bases, 1, true);
    c["attention_mechanism"] = "within-relation";
    c["attention_init"] = "zeros";
    c["add_self_loops"] = false;
    c["bias"] = false;
    auto rgat = registry.create("rgat", c);
    auto rgcn = registry.create("rgcn", {{"in_channels", 6}, {"out_channels", 4}, {"num_relations", r},
                                         {"num_bases", bases}, {"root_weight", false}, {"bias", false}, {"seed", 9}});
    // The same relation weights in both layers (rgcn's own, copied into rgat).
    const auto from = values_of(*rgcn);
    for (auto [name, v] : rgat->named_parameters()) {
      if (name != "att_src" && name != "att_dst") v.value().copy_from(from.at(name));
    }
    const auto att = values_of(*rgat);
    CHECK(max_abs_diff(att.at("att_src"), Tensor(Shape{1, 4})) == 0.0f);
    CHECK(max_abs_diff(att.at("att_dst"), Tensor(Shape{1, 4})) == 0.0f);
    rgat->eval();
    rgcn->eval();
    const auto* a = dynamic_cast<const NodeLayer*>(rgat.get());
    const auto* b = dynamic_cast<const NodeLayer*>(rgcn.get());
    const Tensor ya = a->forward(NodeFeatures(Var(x)), g, 0).value();
    const Tensor yb = b->forward(NodeFeatures(Var(x)), g, 0).value();
    INFO("bases " << bases);
    CHECK(max_abs_diff(ya, yb) < 1e-5f);
  }
}

TEST_CASE("rgat within-relation and multiplicative gradients", "[graph][grad]") {
  const GraphContext g = GraphContext::from_dataset(random_typed_dataset(14, 40, 2, 15));
  for (const char* mode : {"additive-self-attention", "multiplicative-self-attention"}) {
    Json c = config(5, 3, g.num_relations(), 2, 2, true);
    c["attention_mechanism"] = "within-relation";
    c["attention_mode"] = mode;
    c["dropout"] = 0.3;
    RgatConv layer(RgatOptions::from_json(c));
    const Tensor x = random_tensor({14, 5}, 16);
    attend::testing::GradCheckOptions fine;
    fine.eps = 2e-3f;  // LeakyReLU kinks in the logits
    INFO(mode);
    auto on_x = check_gradients([&](const std::vector<Var>& v) { return layer.forward(NodeFeatures(v[0]), g, 9); },
                                {x}, fine);
    INFO(on_x.report);
    CHECK(on_x.ok);
    auto on_params = check_module_gradients(layer, [&] { return layer.forward(NodeFeatures(Var(x)), g, 9); }, fine);
    INFO(on_params.report);
    CHECK(on_params.ok);
  }
}

TEST_CASE("rgat gradients on inputs and parameters, with dropout", "[graph][grad]") {
  const GraphContext g = GraphContext::from_dataset(random_typed_dataset(14, 40, 2, 5));
  Json c = config(5, 3, g.num_relations(), 2, 2, true);
  c["dropout"] = 0.3;
  c["input_dropout"] = 0.2;
  RgatConv layer(RgatOptions::from_json(c));
  const Tensor x = random_tensor({14, 5}, 6);
  attend::testing::GradCheckOptions fine;
  fine.eps = 2e-3f;  // LeakyReLU kinks in the logits
  auto on_x = check_gradients([&](const std::vector<Var>& v) { return layer.forward(NodeFeatures(v[0]), g, 9); }, {x},
                              fine);
  INFO(on_x.report);
  CHECK(on_x.ok);
  auto on_params = check_module_gradients(layer, [&] { return layer.forward(NodeFeatures(Var(x)), g, 9); }, fine);
  INFO(on_params.report);
  CHECK(on_params.ok);
}

TEST_CASE("an rgat model's training step is bit-identical for 1 and 2 threads", "[graph]") {
  Registry registry;
  register_graph_layers(registry);
  const GraphContext g = GraphContext::from_dataset(random_typed_dataset(1500, 6000, 4, 8));
  const int64_t r = g.num_relations();
  Json first = config(1500, 8, r, 3, 2, true);
  first["dropout"] = 0.4;
  first["input_dropout"] = 0.3;
  const Json model = {{"layers", {{{"type", "rgat"}, {"config", first}},
                                  {{"type", "rgat"}, {"config", config(16, 3, r, 0, 1, false)}}}}};
  const auto x = identity_features(1500);
  const Tensor seed_grad = random_tensor({1500, 3}, 10);
  const NodeFeatures features = NodeFeatures(x);
  const auto one = attend::testing::model_output_and_gradients(model, registry, g, features, seed_grad, 1);
  const auto two = attend::testing::model_output_and_gradients(model, registry, g, features, seed_grad, 2);
  for (std::size_t i = 0; i < one.size(); ++i) CHECK(bitwise_equal(one[i], two[i]));
}

TEST_CASE("rgat builds through the registry and checks its options", "[graph]") {
  Registry registry;
  register_graph_layers(registry);
  auto module = registry.create("rgat", config(4, 2, 5, 2, 2, true));
  CHECK(module->type_name() == "rgat");
  CHECK(RgatOptions::from_json(module->config()).to_json() == module->config());
  CHECK_THROWS_AS(registry.create("rgat", config(4, 2, 0, 2, 2, true)), InputError);
  for (const char* key : {"attention_mechanism", "attention_mode", "attention_init"}) {
    Json bad = config(4, 2, 5, 2, 2, true);
    bad[key] = "sideways";
    CHECK_THROWS_AS(registry.create("rgat", bad), InputError);
  }
}
