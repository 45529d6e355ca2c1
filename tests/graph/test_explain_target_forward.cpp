#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <string>
#include <tuple>
#include <utility>

#include "attend/graph/explain/computation_graph.hpp"
#include "attend/graph/explain/explained_quantity.hpp"
#include "attend/graph/explain/integrated_gradients.hpp"
#include "attend/graph/explain/target_forward.hpp"
#include "explain_models.hpp"
#include "scoped_threads.hpp"

using namespace attend;
using namespace attend::graph;
using attend::testing::featured_dataset;
using attend::testing::graph_registry;
using attend::testing::random_tensor;
using attend::testing::ScopedThreads;
using attend::testing::TinyNodeModel;
using attend::testing::two_layer_model;

namespace {

// The GNNExplainer authors' GCN as the ba-shapes preset builds it: three gcn layers without
// normalisation, normalize_hidden, jumping knowledge "cat" into a node_linear head.
Json jumping_knowledge_gcn(int64_t features, int64_t classes, bool batch_norm = false) {
  Json layers = Json::array();
  for (int i = 0; i < 3; ++i) {
    layers.push_back({{"type", "gcn"},
                      {"config",
                       {{"in_channels", i == 0 ? features : 6}, {"out_channels", 6}, {"normalize", false},
                        {"add_self_loops", false}, {"seed", 20 + i}}}});
    // As the ba-community preset: the head reads the normalised outputs, not the layers'.
    if (batch_norm) layers.push_back({{"type", "batch_norm"}, {"config", {{"in_channels", 6}}}});
  }
  layers.push_back({{"type", "node_linear"}, {"config", {{"in_channels", 18}, {"out_channels", classes}, {"seed", 30}}}});
  return {{"layers", layers}, {"activation", "relu"}, {"jumping_knowledge", "cat"}, {"normalize_hidden", true}};
}

// `first` ("gat" or "gcn"), a batch_norm, then a gcn, without jumping knowledge: a batch_norm
// between two message-passing layers. The batch_norm's running statistics and affine
// parameters are set away from the identity, so that reading the wrong rows or statistics
// shows in the logits.
std::unique_ptr<NodeClassifier> batch_norm_between(const std::string& first, const PreparedNodeData& data,
                                                   const Registry& registry) {
  const int64_t f = data.features.cols(), c = data.dataset.num_classes, hidden = 6;
  Json one = {{"in_channels", f}, {"out_channels", hidden}, {"seed", 11}};
  if (first == "gat") one["heads"] = 1;
  const Json layers = Json::array({{{"type", first}, {"config", one}},
                                   {{"type", "batch_norm"}, {"config", {{"in_channels", hidden}}}},
                                   {{"type", "gcn"}, {"config", {{"in_channels", hidden}, {"out_channels", c}, {"seed", 12}}}}});
  auto model = std::make_unique<NodeClassifier>(Json{{"layers", layers}, {"activation", "relu"}}, registry);
  uint64_t seed = 40;
  for (auto& [name, v] : model->named_parameters()) {
    if (name.rfind("layers.1.", 0) != 0) continue;
    const bool variance = name == "layers.1.running_var";
    v.value() = random_tensor(v.value().shape(), seed++, variance ? 0.2f : -0.8f, variance ? 2.0f : 0.8f);
  }
  model->eval();
  return model;
}

// `layer` ("gat", "gcn", "rgcn", or "jk-gcn": jumping_knowledge_gcn) over a featured graph of
// 60 nodes, 110 edges, 4 features and 3 classes drawn from `seed`.
TinyNodeModel tiny_model(const std::string& layer, uint64_t seed) {
  if (layer != "jk-gcn") return TinyNodeModel(layer, 60, 110, 4, 3, seed);
  return TinyNodeModel(jumping_knowledge_gcn(4, 3), prepare_node_data(featured_dataset(60, 110, 4, 3, false, seed), true));
}

}  // namespace

TEST_CASE("target forward: logits and gradients of each copy are the whole computation graph's", "[explain]") {
  ScopedThreads threads(1);
  for (const std::string layer : {"gat", "gcn", "rgcn", "jk-gcn", "jk-gcn-bn", "gat-bn-gcn", "gcn-bn-gcn"}) {
    CAPTURE(layer);
    const bool typed = layer == "rgcn";
    const PreparedNodeData full = prepare_node_data(featured_dataset(60, 110, 4, 3, typed, 14), true);
    auto registry = graph_registry();
    std::unique_ptr<NodeClassifier> built;
    if (layer.size() > 7 && layer.substr(layer.size() - 7) == "-bn-gcn") {
      built = batch_norm_between(layer.substr(0, 3), full, *registry);
    } else {
      built = std::make_unique<NodeClassifier>(layer.rfind("jk-gcn", 0) == 0
                                                   ? jumping_knowledge_gcn(4, 3, layer == "jk-gcn-bn")
                                                   : two_layer_model(layer, full),
                                               *registry);
    }
    NodeClassifier& model = *built;
    model.eval();
    const ComputationGraph cg = computation_graph(full, 9, model.message_passing_hops());
    const int64_t n = cg.num_nodes(), e = cg.data.graph.plain().num_edges(), copies = 3, cls = 1;
    REQUIRE(cg.hops >= 2);
    const TargetForward pass(model, cg, copies);
    const Tensor x = random_tensor({copies * n, 4}, 5, 0.0f, 1.0f);       // [copies n, F]
    const Tensor mask = random_tensor({copies * e}, 6, 0.1f, 1.0f);       // [copies E]
    Var px(x, true), pm(mask, true);
    const Var logits = pass.logits(model, NodeFeatures(px), pm);  // [copies, C]
    Var f = target_log_probability(model, pass, NodeFeatures(px), pm, cls);
    f.backward();
    const int64_t c = logits.dim(1);
    for (int64_t k = 0; k < copies; ++k) {
      // The reference: the model's own forward over the whole computation graph, copy by copy.
      Var kx(Tensor({n, 4}, std::vector<float>(x.data() + k * n * 4, x.data() + (k + 1) * n * 4)), true);
      Var km(Tensor({e}, std::vector<float>(mask.data() + k * e, mask.data() + (k + 1) * e)), true);
      const GraphContext masked = cg.data.graph.with_edge_mask(km);
      const Tensor all = model.forward(NodeFeatures(kx), masked, 0).value();  // [n, C]
      for (int64_t j = 0; j < c; ++j) CHECK(logits.value()[k * c + j] == Approx(all[cg.target * c + j]).margin(1e-6));
      Var fk = target_log_probability(model, NodeFeatures(kx), masked, {cg.target}, {cls});
      fk.backward();
      for (int64_t i = 0; i < n * 4; ++i) CHECK(px.grad()[k * n * 4 + i] == Approx(kx.grad()[i]).margin(1e-6));
      for (int64_t i = 0; i < e; ++i) CHECK(pm.grad()[k * e + i] == Approx(km.grad()[i]).margin(1e-6));
    }
  }
}

TEST_CASE("target forward: a shared input row for the outermost nodes gives each copy's logits and mask gradient", "[explain]") {
  ScopedThreads threads(1);
  for (const std::string layer : {"gat", "rgcn", "jk-gcn"}) {
    CAPTURE(layer);
    TinyNodeModel tiny = tiny_model(layer, 17);
    NodeClassifier& model = tiny.model;
    const ComputationGraph cg = computation_graph(tiny.data, 9, model.message_passing_hops());
    const int64_t e = cg.data.graph.plain().num_edges(), copies = 4;
    const TargetForward own(model, cg, copies), shared(model, cg, copies, TargetForward::Input::kShared);
    REQUIRE(shared.features().rows() < own.features().rows());  // the outermost nodes are held once
    const Tensor mask = random_tensor({copies * e}, 8, 0.1f, 1.0f);  // [copies E]
    Var m_own(mask, true), m_shared(mask, true);
    Var f_own = target_log_probability(model, own, own.features(), m_own, 2);
    Var f_shared = target_log_probability(model, shared, shared.features(), m_shared, 2);
    f_own.backward();
    f_shared.backward();
    CHECK(f_shared.value().item() == Approx(f_own.value().item()).margin(1e-6));
    for (int64_t i = 0; i < copies * e; ++i) CHECK(m_shared.grad()[i] == Approx(m_own.grad()[i]).margin(1e-6));
  }
}

TEST_CASE("target forward: a pass that shares the other input's layers or copies one copy's gives the bits of one built alone", "[explain]") {
  ScopedThreads threads(1);
  for (const std::string layer : {"gat", "gcn", "rgcn", "jk-gcn"}) {
    CAPTURE(layer);
    TinyNodeModel tiny = tiny_model(layer, 19);
    NodeClassifier& model = tiny.model;
    const ComputationGraph cg = computation_graph(tiny.data, 9, model.message_passing_hops());
    const int64_t n = cg.num_nodes(), e = cg.data.graph.plain().num_edges(), copies = 3;
    const TargetForward own(model, cg, copies), shared(model, cg, copies, TargetForward::Input::kShared);
    // Each built with the other as `same_copies`: its later layers are the other's.
    const TargetForward own_sharing(model, cg, copies, TargetForward::Input::kPerCopy, &shared);
    const TargetForward shared_sharing(model, cg, copies, TargetForward::Input::kShared, &own);
    // Each built from the one-copy pass's layers (after a forward built their adjacencies).
    const TargetForward one(model, cg, 1);
    {
      NoGradGuard no_grad;
      one.logits(model, one.features(), Var());
    }
    const TargetForward own_copied(model, cg, copies, TargetForward::Input::kPerCopy, nullptr, &one);
    const TargetForward shared_copied(model, cg, copies, TargetForward::Input::kShared, nullptr, &one);
    const Tensor x = random_tensor({copies * n, 4}, 9, 0.0f, 1.0f);  // [copies n, F]
    const Tensor mask = random_tensor({copies * e}, 10, 0.1f, 1.0f);  // [copies E]
    // f, then the gradients of the mask and (with its own input) of the features, end to end.
    const auto gradients = [&](const TargetForward& pass, bool own_input) {
      Var px(x, true), pm(mask, true);
      Var f = target_log_probability(model, pass, own_input ? NodeFeatures(px) : pass.features(), pm, 2);
      f.backward();
      std::vector<float> out{f.value().item()};
      out.insert(out.end(), pm.grad().data(), pm.grad().data() + pm.grad().numel());
      if (own_input) out.insert(out.end(), px.grad().data(), px.grad().data() + px.grad().numel());
      return out;
    };
    for (const auto& [alone, other, own_input] :
         {std::make_tuple(&own, &own_sharing, true), std::make_tuple(&shared, &shared_sharing, false),
          std::make_tuple(&own, &own_copied, true), std::make_tuple(&shared, &shared_copied, false)}) {
      CAPTURE(own_input);
      const std::vector<float> a = gradients(*alone, own_input), b = gradients(*other, own_input);
      REQUIRE(b.size() == a.size());
      int64_t differ = 0;
      for (std::size_t i = 0; i < a.size(); ++i) differ += b[i] != a[i];
      CHECK(differ == 0);
    }
  }
}

TEST_CASE("target forward: predicted class and value of one copy are the computation graph's", "[explain]") {
  TinyNodeModel tiny = tiny_model("jk-gcn", 15);
  NodeClassifier& model = tiny.model;
  for (const int64_t target : {0, 11, 42}) {
    const ComputationGraph cg = computation_graph(tiny.data, target, model.message_passing_hops());
    const TargetForward one(model, cg, 1);
    CHECK(predicted_class(model, one) == predicted_class(model, cg.data, cg.target));
    // The memoised forward of TargetForwards gives the same class and the same bits.
    TargetForwards passes(model, cg);
    CHECK(predicted_class(passes) == predicted_class(model, one));
    NoGradGuard no_grad;
    const double value = target_log_probability(model, one, one.features(), Var(), 2).value().item();
    CHECK(input_log_probability(passes, 2) == value);
    CHECK(value ==
          Approx(target_log_probability(model, cg.data.features, cg.data.graph, {cg.target}, {2}).value().item())
              .margin(1e-6));
  }
}

TEST_CASE("target forward: integrated gradients on 1 and 2 threads are bit for bit the same", "[explain]") {
  TinyNodeModel tiny = tiny_model("jk-gcn", 16);
  const ComputationGraph cg = computation_graph(tiny.data, 9, tiny.model.message_passing_hops());
  auto run = [&](int threads) {
    ScopedThreads scoped(threads);
    TargetForwards passes(tiny.model, cg);
    return std::make_pair(integrated_gradients_edges(passes, 0, PathSteps{QuadratureKind::kMidpoint, 20}),
                          integrated_gradients_features(passes, 0, PathSteps{QuadratureKind::kMidpoint, 20}));
  };
  const auto one = run(1), two = run(2);
  auto same_bits = [](const Tensor& a, const Tensor& b) {
    return a.numel() == b.numel() && std::equal(a.data(), a.data() + a.numel(), b.data());
  };
  CHECK(same_bits(one.first.attribution, two.first.attribution));
  CHECK(same_bits(one.second.attribution, two.second.attribution));
  CHECK(one.first.completeness_gap == two.first.completeness_gap);
}
