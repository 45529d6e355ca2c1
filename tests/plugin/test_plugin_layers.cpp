// The example plugins' layers, loaded through the plugin loader: each equals a plain
// reference and passes the same finite-difference gradient checks as the built-in layers.
#include <catch2/catch.hpp>

#include <cmath>

#include "attend/core/communicator.hpp"
#include "attend/core/ops/loss.hpp"
#include "attend/core/parameter_arena.hpp"
#include "attend/core/plugin_loader.hpp"
#include "attend/core/random.hpp"
#include "attend/core/ops/softmax.hpp"
#include "attend/graph/builtin_layers.hpp"
#include "attend/graph/explain/computation_graph.hpp"
#include "attend/graph/explain/occlusion.hpp"
#include "attend/graph/layers/gat_conv.hpp"
#include "attend/graph/minibatch_training.hpp"
#include "attend/graph/node_classifier.hpp"
#include "attend/graph/node_layer.hpp"
#include "attend/graph/node_training.hpp"
#include "grad_check.hpp"
#include "random_graphs.hpp"

using namespace attend;
using namespace attend::graph;
using attend::testing::check_gradients;
using attend::testing::check_module_gradients;
using attend::testing::random_dataset;
using attend::testing::random_tensor;

namespace {
/// A plugin layer built through a registry that loaded `plugin`; the registry may go, the
/// layer keeps the library loaded.
std::unique_ptr<NodeLayer> plugin_layer(const char* plugin, const std::string& type, const Json& config) {
  Registry registry;
  load_plugin(plugin, registry);
  std::unique_ptr<Module> m = registry.create(type, config);
  auto* layer = dynamic_cast<NodeLayer*>(m.get());
  REQUIRE(layer != nullptr);
  m.release();
  return std::unique_ptr<NodeLayer>(layer);
}

Tensor param(const Module& m, const std::string& name) {
  for (const auto& [n, v] : m.named_parameters()) {
    if (n == name) return v.value();
  }
  FAIL("no parameter " << name);
  return {};
}

// AGNN's propagation written plainly, edge by edge, in double: h = x W, then
// softmax over in-neighbours of beta cos(h_i, h_j), aggregate h_j (times the edge's mask
// entry m_e [E of view] when given), add bias.
Tensor naive_agnn(const Tensor& x, const Tensor& w, float beta, const Tensor& bias, const GraphView& view,
                  const std::vector<double>& edge_mask = {}) {
  const int64_t n = x.dim(0), f = x.dim(1), c = w.dim(1);
  std::vector<double> h(n * c, 0.0), norm(n, 0.0);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t k = 0; k < c; ++k) {
      for (int64_t j = 0; j < f; ++j) h[i * c + k] += double(x[i * f + j]) * w[j * c + k];
      norm[i] += h[i * c + k] * h[i * c + k];
    }
    norm[i] = std::sqrt(norm[i]);
  }
  Tensor out({n, c});
  for (int64_t i = 0; i < n; ++i) {
    std::vector<double> score, scale;
    std::vector<int64_t> from;
    for (int64_t e = 0; e < view.num_edges(); ++e) {
      if (view.dst[e] != i) continue;
      const int64_t j = view.src[e];
      double dot = 0;
      for (int64_t k = 0; k < c; ++k) dot += h[i * c + k] * h[j * c + k];
      score.push_back(beta * dot / (norm[i] * norm[j]));
      from.push_back(j);
      scale.push_back(edge_mask.empty() ? 1.0 : edge_mask[e]);
    }
    double m = -1e300, z = 0;
    for (double s : score) m = std::max(m, s);
    for (double& s : score) z += (s = std::exp(s - m));
    for (int64_t k = 0; k < c; ++k) {
      double acc = 0;
      for (std::size_t e = 0; e < score.size(); ++e) acc += score[e] / z * scale[e] * h[from[e] * c + k];
      out[i * c + k] = float(acc + bias[k]);
    }
  }
  return out;
}
}  // namespace

TEST_CASE("plugin agnn equals AGNN's propagation computed edge by edge", "[plugin]") {
  const GraphContext g = GraphContext::from_dataset(random_dataset(30, 80, 1));
  const Tensor x = random_tensor({30, 6}, 2);
  auto layer = plugin_layer(ATTEND_AGNN_PLUGIN, "agnn", {{"in_channels", 6}, {"out_channels", 4}, {"beta", 2.5}, {"seed", 3}});
  layer->eval();
  Tensor bias = param(*layer, "bias");
  for (int64_t k = 0; k < 4; ++k) bias[k] = 0.1f * float(k + 1);
  layer->named_parameters().back().second.value() = bias;
  const Tensor y = layer->forward(NodeFeatures(Var(x)), g, 0).value();
  const Tensor ref = naive_agnn(x, param(*layer, "weight"), 2.5f, bias, g.looped());
  CHECK(max_abs_diff(y, ref) < 1e-5f);
}

TEST_CASE("plugin agnn honours an edge mask without code of its own", "[plugin][grad]") {
  const GraphContext g = GraphContext::from_dataset(random_dataset(20, 50, 12));
  const Tensor x = random_tensor({20, 6}, 13);
  auto layer = plugin_layer(ATTEND_AGNN_PLUGIN, "agnn", {{"in_channels", 6}, {"out_channels", 4}, {"beta", 2.0}, {"seed", 3}});
  layer->eval();
  const int64_t n_edges = g.plain().num_edges();
  Tensor mask = random_tensor({n_edges}, 14, 0.2f, 1.0f);
  for (int64_t e = 0; e < n_edges; e += 4) mask[e] = 0.0f;
  // The mask of each looped edge: its plain edge's entry (the graph is undirected, so the
  // endpoints name it), 1 on the self-loops the looped view adds.
  const GraphView& looped = g.looped();
  std::vector<double> looped_mask(looped.num_edges(), 1.0);
  for (int64_t e = 0; e < looped.num_edges(); ++e)
    for (int64_t p = 0; p < n_edges; ++p)
      if (g.plain().src[p] == looped.src[e] && g.plain().dst[p] == looped.dst[e] && looped.src[e] != looped.dst[e])
        looped_mask[e] = mask[p];
  const Tensor y = layer->forward(NodeFeatures(Var(x)), g.with_edge_mask(Var(mask)), 0).value();
  const Tensor ref = naive_agnn(x, param(*layer, "weight"), 2.0f, param(*layer, "bias"), looped, looped_mask);
  CHECK(max_abs_diff(y, ref) < 1e-5f);
  const Tensor plain = layer->forward(NodeFeatures(Var(x)), g, 0).value();
  CHECK(bitwise_equal(layer->forward(NodeFeatures(Var(x)), g.with_edge_mask(Var(Tensor({n_edges}, 1.0f))), 0).value(), plain));
  auto on_mask = check_gradients(
      [&](const std::vector<Var>& v) { return layer->forward(NodeFeatures(Var(x)), g.with_edge_mask(v[0]), 0); },
      {random_tensor({n_edges}, 15, 0.1f, 1.0f)});
  INFO(on_mask.report);
  CHECK(on_mask.ok);
}

TEST_CASE("plugin agnn gradients, dense and sparse input, with dropout", "[plugin][grad]") {
  const GraphContext g = GraphContext::from_dataset(random_dataset(25, 60, 4));
  auto layer = plugin_layer(ATTEND_AGNN_PLUGIN, "agnn",
                            {{"in_channels", 7}, {"out_channels", 3}, {"dropout", 0.3}, {"input_dropout", 0.2}, {"seed", 5}});
  const Tensor x = random_tensor({25, 7}, 6);
  auto on_x = check_gradients([&](const std::vector<Var>& v) { return layer->forward(NodeFeatures(v[0]), g, 11); }, {x});
  INFO(on_x.report);
  CHECK(on_x.ok);
  auto sparse = std::make_shared<const SparseMatrix>(SparseMatrix::from_dense(x));
  auto on_params = check_module_gradients(*layer, [&] { return layer->forward(NodeFeatures(sparse), g, 11); });
  INFO(on_params.report);
  CHECK(on_params.ok);
  CHECK(layer->named_parameters().size() == 3);  // weight, beta, bias
}

TEST_CASE("plugin gated_gat equals its gate applied to the built-in gat", "[plugin]") {
  const GraphContext g = GraphContext::from_dataset(random_dataset(20, 50, 7));
  const Tensor x = random_tensor({20, 5}, 8);
  const Json config = {{"in_channels", 5}, {"out_channels", 3}, {"heads", 2}, {"seed", 9}};
  auto layer = plugin_layer(ATTEND_GATED_GAT_PLUGIN, "gated_gat", config);
  layer->eval();
  GatConv gat(GatOptions::from_json(config));
  gat.eval();
  for (auto [name, var] : gat.named_parameters()) var.value() = param(*layer, "gat." + name);
  const Tensor a = gat.forward(NodeFeatures(Var(x)), g, 0).value();  // [20, 6]
  const Tensor wg = param(*layer, "gate_weight"), bg = param(*layer, "gate_bias"), ws = param(*layer, "skip_weight");
  const Tensor y = layer->forward(NodeFeatures(Var(x)), g, 0).value();
  REQUIRE(y.shape() == Shape{20, 6});
  Tensor ref({20, 6});
  for (int64_t i = 0; i < 20; ++i) {
    for (int64_t k = 0; k < 6; ++k) {
      double gate = bg[k], skip = 0;
      for (int64_t j = 0; j < 5; ++j) {
        gate += double(x[i * 5 + j]) * wg[j * 6 + k];
        skip += double(x[i * 5 + j]) * ws[j * 6 + k];
      }
      gate = 1.0 / (1.0 + std::exp(-gate));
      ref[i * 6 + k] = float(gate * a[i * 6 + k] + (1 - gate) * skip);
    }
  }
  CHECK(max_abs_diff(y, ref) < 1e-5f);
}

TEST_CASE("plugin gated_gat gradients, dense and sparse input, with dropout", "[plugin][grad]") {
  const GraphContext g = GraphContext::from_dataset(random_dataset(25, 60, 10));
  auto layer = plugin_layer(ATTEND_GATED_GAT_PLUGIN, "gated_gat",
                            {{"in_channels", 7}, {"out_channels", 3}, {"heads", 2}, {"dropout", 0.3},
                             {"input_dropout", 0.2}, {"seed", 12}});
  const Tensor x = random_tensor({25, 7}, 13);
  auto on_x = check_gradients([&](const std::vector<Var>& v) { return layer->forward(NodeFeatures(v[0]), g, 11); }, {x});
  INFO(on_x.report);
  CHECK(on_x.ok);
  auto sparse = std::make_shared<const SparseMatrix>(SparseMatrix::from_dense(x));
  // As for gat: a step of 1e-2 can carry a score across LeakyReLU's kink.
  attend::testing::GradCheckOptions fine;
  fine.eps = 2e-3f;
  auto on_params = check_module_gradients(*layer, [&] { return layer->forward(NodeFeatures(sparse), g, 11); }, fine);
  INFO(on_params.report);
  CHECK(on_params.ok);
}

TEST_CASE("a plugin layer trains on sampled blocks unchanged", "[plugin]") {
  // Fan-outs -1 and the whole training split as one batch: the mini-batch gradient of a model
  // with the agnn plugin layer is its full-batch gradient (minibatch_training.hpp).
  Registry registry;
  register_graph_layers(registry);
  load_plugin(ATTEND_AGNN_PLUGIN, registry);
  const GraphContext g = GraphContext::from_dataset(random_dataset(150, 450, 21));
  const NodeFeatures x(Var(random_tensor({150, 6}, 22)));
  std::vector<int64_t> labels(150), train;
  for (int64_t i = 0; i < 150; ++i) labels[i] = (i * 7) % 3;
  for (int64_t i = 0; i < 150; i += 4) train.push_back(i);
  NodeClassifier model({{"layers", Json::array({{{"type", "agnn"}, {"config", {{"in_channels", 6}, {"out_channels", 5}, {"seed", 1}}}},
                                                {{"type", "gat"}, {"config", {{"in_channels", 5}, {"out_channels", 3}, {"seed", 2}}}}})}},
                       registry);
  ParameterArena arena(model.named_parameters());
  arena.zero_grad();
  ops::cross_entropy(model.forward(x, g, 0), labels, train).backward();
  const std::vector<float> full(arena.grads().begin(), arena.grads().end());
  arena.zero_grad();
  MiniBatchOptions o;
  o.sampler.fanouts = {-1, -1};
  o.batch_size = static_cast<int64_t>(train.size());
  minibatch_gradient(model, arena, Communicator::self(), g, labels, in_memory_rows(x), o, minibatch_keys(0), train, 0);
  REQUIRE(arena.grads().size() == full.size());
  double largest = 0.0, plugin_norm = 0.0;
  for (std::size_t i = 0; i < full.size(); ++i) largest = std::max(largest, std::fabs(double(arena.grads()[i]) - full[i]));
  for (const ArenaSlot& slot : arena.slots()) {
    if (slot.name.rfind("layers.0.", 0) != 0) continue;  // the plugin layer's parameters
    for (int64_t k = slot.offset; k < slot.offset + slot.numel(); ++k) plugin_norm += double(full[k]) * full[k];
  }
  CHECK(largest <= 1e-6);
  CHECK(plugin_norm > 1e-8);  // a real gradient reaches the plugin's parameters
}

TEST_CASE("occlusion explains a plugin agnn model: each edge's score is the whole graph's forward with its mask entry 0",
          "[plugin]") {
  Registry registry;
  load_plugin(ATTEND_AGNN_PLUGIN, registry);
  NodeDataset d = random_dataset(40, 70, 31);
  d.features = SparseMatrix::from_dense(random_tensor({40, 4}, 32, 0.0f, 1.0f));
  d.num_classes = 3;
  for (int64_t i = 0; i < 40; ++i) d.labels[i] = i % 3;
  const PreparedNodeData data = prepare_node_data(d, true);
  const Json config = {
      {"layers", Json::array({{{"type", "agnn"}, {"config", {{"in_channels", 4}, {"out_channels", 6}, {"beta", 2.0}, {"seed", 3}}}},
                              {{"type", "agnn"}, {"config", {{"in_channels", 6}, {"out_channels", 3}, {"beta", 1.5}, {"seed", 4}}}}})},
      {"activation", "elu"}};
  NodeClassifier model(config, registry);
  model.eval();
  const int64_t target = 5, cls = 2;
  const ComputationGraph cg = computation_graph(data, target, model.message_passing_hops());
  TargetForwards passes(model, cg);
  const std::vector<float> score = occlusion_edges(passes, cls, cg.explained, false);
  auto f = [&](const GraphContext& graph) {
    NoGradGuard no_grad;
    const Tensor log_p = ops::log_softmax(model.forward(data.features, graph, 0)).value();  // [N, C]
    return static_cast<double>(log_p[target * log_p.dim(1) + cls]);
  };
  const double full = f(data.graph);
  const int64_t e_count = data.graph.plain().num_edges();
  int moved = 0;
  for (std::size_t k = 0; k < cg.explained.size(); ++k) {
    Tensor mask({e_count}, 1.0f);  // [E] of the whole graph
    mask[cg.plain_edge[cg.explained[k]]] = 0.0f;
    const double occluded = f(data.graph.with_edge_mask(Var(mask)));
    CHECK(score[k] == Approx(full - occluded).margin(1e-6));
    moved += std::abs(full - occluded) > 1e-4;
  }
  CHECK(moved > 3);
}
