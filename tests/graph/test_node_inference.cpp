// Inference modes: layer-wise (and sampled with fan-outs -1) give the full-batch logits, for
// every built-in 1-hop layer and under jumping knowledge; graphormer is refused layer-wise;
// sampled inference takes one fan-out per message-passing layer.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "attend/core/autodiff.hpp"
#include "attend/core/error.hpp"
#include "attend/core/ops/indexing.hpp"
#include "attend/core/registry.hpp"
#include "attend/graph/builtin_layers.hpp"
#include "attend/graph/node_inference.hpp"
#include "grad_check.hpp"
#include "random_graphs.hpp"
#include "scoped_threads.hpp"

using namespace attend;
using namespace attend::graph;
using attend::testing::random_dataset;
using attend::testing::random_tensor;
using attend::testing::random_typed_dataset;

namespace {

Json layer(const std::string& type, Json config) { return {{"type", type}, {"config", std::move(config)}}; }

std::vector<int64_t> all_nodes(int64_t n) {
  std::vector<int64_t> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), int64_t{0});
  return v;
}

// Logits of every node in `mode` against full-batch ones: the largest absolute difference,
// and whether all are equal bit for bit.
std::pair<double, bool> compare_with_full(const Json& model_config, const GraphContext& g, const NodeFeatures& x,
                                          InferenceOptions o) {
  Registry registry;
  register_graph_layers(registry);
  NodeClassifier model(model_config, registry);
  const std::vector<int64_t> nodes = all_nodes(g.num_nodes());
  InferenceOptions full;
  const Tensor reference = infer_node_logits(model, g, x, nodes, full);  // [N, C]
  const Tensor got = infer_node_logits(model, g, x, nodes, o);          // [N, C]
  REQUIRE(got.shape() == reference.shape());
  double largest = 0.0;
  bool identical = true;
  for (int64_t i = 0; i < got.numel(); ++i) {
    largest = std::max(largest, std::fabs(double(got[i]) - double(reference[i])));
    identical = identical && got[i] == reference[i];
  }
  return {largest, identical};
}

}  // namespace

TEST_CASE("layer-wise and all-neighbour sampled inference give the full-batch logits", "[graph]") {
  testing::ScopedThreads threads(1);
  const GraphContext g = GraphContext::from_dataset(random_dataset(300, 900, 2));
  const NodeFeatures x(Var(random_tensor({300, 6}, 3)));
  const GraphContext typed = GraphContext::from_dataset(random_typed_dataset(200, 500, 3, 4));
  const int64_t r = typed.num_relations();
  const NodeFeatures identity(identity_features(200));
  struct Case {
    std::string name;
    Json config;
    const GraphContext* graph;
    const NodeFeatures* x;
  };
  const std::vector<Case> cases = {
      {"gat", {{"layers", {layer("gat", {{"in_channels", 6}, {"out_channels", 4}, {"heads", 2}, {"seed", 1}}),
                           layer("gat", {{"in_channels", 8}, {"out_channels", 3}, {"seed", 2}})}}}, &g, &x},
      {"gatv2 and graph_transformer",
       {{"layers", {layer("gatv2", {{"in_channels", 6}, {"out_channels", 4}, {"heads", 2}, {"seed", 1}}),
                    layer("graph_transformer", {{"in_channels", 8}, {"out_channels", 3}, {"seed", 2}})}}}, &g, &x},
      {"gcn, three layers",
       {{"layers", {layer("gcn", {{"in_channels", 6}, {"out_channels", 5}, {"seed", 1}}),
                    layer("gcn", {{"in_channels", 5}, {"out_channels", 5}, {"normalize", false}, {"seed", 2}}),
                    layer("gcn", {{"in_channels", 5}, {"out_channels", 3}, {"seed", 3}})}},
        {"activation", "relu"}}, &g, &x},
      {"gcn under jumping knowledge with normalised hidden layers",
       {{"layers", {layer("gcn", {{"in_channels", 6}, {"out_channels", 5}, {"seed", 1}}),
                    layer("gcn", {{"in_channels", 5}, {"out_channels", 5}, {"seed", 2}}),
                    layer("node_linear", {{"in_channels", 10}, {"out_channels", 3}, {"seed", 3}})}},
        {"jumping_knowledge", "cat"}, {"normalize_hidden", true}}, &g, &x},
      {"rgcn and rgat on featureless nodes",
       {{"layers", {layer("rgcn", {{"in_channels", 200}, {"out_channels", 6}, {"num_relations", r}, {"num_bases", 2}, {"seed", 1}}),
                    layer("rgat", {{"in_channels", 6}, {"out_channels", 3}, {"num_relations", r}, {"seed", 2}})}},
        {"activation", "relu"}}, &typed, &identity},
  };
  for (const Case& c : cases) {
    std::size_t depth = 0;  // hops: the node_linear head adds none
    for (const Json& l : c.config["layers"]) depth += l["type"] == "node_linear" ? 0 : 1;
    for (int64_t batch_size : {7, 64, 1000}) {
      InferenceOptions layerwise;
      layerwise.mode = InferenceMode::kLayerwise;
      layerwise.batch_size = batch_size;
      InferenceOptions sampled;
      sampled.mode = InferenceMode::kSampled;
      sampled.batch_size = batch_size;
      sampled.sampler.fanouts.assign(depth, -1);
      for (const InferenceOptions& o : {layerwise, sampled}) {
        const auto [largest, identical] = compare_with_full(c.config, *c.graph, *c.x, o);
        INFO(c.name << ", " << inference_mode_name(o.mode) << ", batches of " << batch_size << ": largest difference "
                    << largest << (identical ? " (identical)" : ""));
        // Not bit for bit in general: a node's in-edges are summed in the order of the batch's
        // local node ids (node_inference.hpp); observed differences are about 1e-7. One batch
        // of all nodes in order numbers them as the whole graph does: the same bits.
        CHECK(largest <= 2e-6);
        if (batch_size >= c.graph->num_nodes()) CHECK(identical);
      }
    }
  }
}

TEST_CASE("inference returns the logits of the asked nodes in the asked order", "[graph]") {
  testing::ScopedThreads threads(1);
  Registry registry;
  register_graph_layers(registry);
  const GraphContext g = GraphContext::from_dataset(random_dataset(120, 400, 5));
  const NodeFeatures x(Var(random_tensor({120, 4}, 6)));
  NodeClassifier model({{"layers", {layer("gcn", {{"in_channels", 4}, {"out_channels", 5}, {"seed", 1}}),
                                    layer("gat", {{"in_channels", 5}, {"out_channels", 3}, {"seed", 2}})}}},
                       registry);
  const Tensor full = infer_node_logits(model, g, x, all_nodes(120), {});  // [N, C]
  const std::vector<int64_t> nodes{77, 3, 119, 40};
  for (InferenceMode mode : {InferenceMode::kFull, InferenceMode::kLayerwise}) {
    InferenceOptions o;
    o.mode = mode;
    o.batch_size = 3;
    const Tensor some = infer_node_logits(model, g, x, nodes, o);  // [4, C]
    REQUIRE(some.dim(0) == 4);
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      for (int64_t k = 0; k < 3; ++k) CHECK(some[i * 3 + k] == Approx(full[nodes[i] * 3 + k]).margin(2e-6));
    }
  }
}

TEST_CASE("sampled inference with small fan-outs differs from full and is fixed by its seed", "[graph]") {
  testing::ScopedThreads threads(1);
  Registry registry;
  register_graph_layers(registry);
  const GraphContext g = GraphContext::from_dataset(random_dataset(200, 2000, 8));
  const NodeFeatures x(Var(random_tensor({200, 4}, 9)));
  NodeClassifier model({{"layers", {layer("gat", {{"in_channels", 4}, {"out_channels", 5}, {"seed", 1}}),
                                    layer("gat", {{"in_channels", 5}, {"out_channels", 3}, {"seed", 2}})}}},
                       registry);
  InferenceOptions o;
  o.mode = InferenceMode::kSampled;
  o.batch_size = 50;
  o.sampler.fanouts = {2, 2};
  o.sampler.seed = 4;
  const std::vector<int64_t> nodes = all_nodes(200);
  const Tensor a = infer_node_logits(model, g, x, nodes, o);
  const Tensor b = infer_node_logits(model, g, x, nodes, o);
  CHECK(std::equal(a.data(), a.data() + a.numel(), b.data()));
  const Tensor full = infer_node_logits(model, g, x, nodes, {});
  CHECK_FALSE(std::equal(a.data(), a.data() + a.numel(), full.data()));
  o.sampler.fanouts = {2};
  CHECK_THROWS_WITH(infer_node_logits(model, g, x, nodes, o),
                    Catch::Contains("1 fan-outs for a model of 2 message-passing layers"));
  o.sampler.fanouts = {2, 2};
  o.batch_size = 0;
  CHECK_THROWS_AS(infer_node_logits(model, g, x, nodes, o), InputError);
  CHECK_THROWS_AS(inference_mode("exact"), InputError);
  CHECK(inference_mode("layerwise") == InferenceMode::kLayerwise);
}

TEST_CASE("layer-wise inference refuses graphormer, which attends over all node pairs", "[graph]") {
  testing::ScopedThreads threads(1);
  Registry registry;
  register_graph_layers(registry);
  const GraphContext g = GraphContext::from_dataset(random_dataset(40, 100, 10));
  const NodeFeatures x(Var(random_tensor({40, 4}, 11)));
  NodeClassifier model({{"layers", {layer("gcn", {{"in_channels", 4}, {"out_channels", 4}, {"seed", 1}}),
                                    layer("graphormer", {{"in_channels", 4}, {"out_channels", 3}, {"heads", 1}, {"seed", 2}})}}},
                       registry);
  InferenceOptions o;
  o.mode = InferenceMode::kLayerwise;
  CHECK_THROWS_WITH(infer_node_logits(model, g, x, all_nodes(40), o), Catch::Contains("layer 1 ('graphormer')"));
}

TEST_CASE("sampled inference draws one hop per message-passing layer, and an old per-layer list gives its logits",
          "[graph]") {
  testing::ScopedThreads threads(1);
  Registry registry;
  register_graph_layers(registry);
  const GraphContext g = GraphContext::from_dataset(random_dataset(200, 2000, 8));
  const NodeFeatures x(Var(random_tensor({200, 4}, 9)));
  const std::vector<int64_t> nodes = all_nodes(200);
  // What sampled inference computed before: each batch's sample with the list as given (one
  // hop per entry), the whole model on it, the batch's rows.
  const auto per_batch = [&](NodeClassifier& model, const InferenceOptions& o) {
    model.eval();
    NoGradGuard no_grad;
    std::vector<float> out;
    const std::vector<std::vector<int64_t>> batches = seed_batches(nodes, o.batch_size, false, 0);
    for (std::size_t b = 0; b < batches.size(); ++b) {
      const SampledSubgraph s = sample_neighbors(g, batches[b], o.sampler, b);
      const Tensor y = model.forward(NodeFeatures(ops::gather_rows(x.dense, s.node_ids)), s.graph, 0).value();
      out.insert(out.end(), y.data(), y.data() + static_cast<int64_t>(batches[b].size()) * y.dim(1));
    }
    return out;
  };
  const auto logits = [&](NodeClassifier& model, const InferenceOptions& o) {
    const Tensor t = infer_node_logits(model, g, x, nodes, o);
    return std::vector<float>(t.data(), t.data() + t.numel());
  };
  InferenceOptions o;
  o.mode = InferenceMode::kSampled;
  o.batch_size = 64;
  o.sampler.seed = 4;

  // Every layer passes messages (the gat presets): the fan-outs as given, the logits as before.
  NodeClassifier gat({{"layers", {layer("gat", {{"in_channels", 4}, {"out_channels", 5}, {"seed", 1}}),
                                  layer("gat", {{"in_channels", 5}, {"out_channels", 3}, {"seed", 2}})}}},
                     registry);
  o.sampler.fanouts = model_fanouts(gat, {3, 2}).fanouts;
  CHECK(o.sampler.fanouts == std::vector<int64_t>{3, 2});
  CHECK(logits(gat, o) == per_batch(gat, o));

  // gcn, batch_norm, gcn, node_linear: two hops of four layers.
  NodeClassifier mixed({{"layers", {layer("gcn", {{"in_channels", 4}, {"out_channels", 6}, {"seed", 1}}),
                                    layer("batch_norm", {{"in_channels", 6}}),
                                    layer("gcn", {{"in_channels", 6}, {"out_channels", 5}, {"seed", 2}}),
                                    layer("node_linear", {{"in_channels", 5}, {"out_channels", 3}, {"seed", 3}})}},
                        {"activation", "relu"}},
                       registry);
  REQUIRE(mixed.message_passing_hops() == 2);
  CHECK(model_fanouts(mixed, {3, 2}).note.empty());
  const ModelFanouts old = model_fanouts(mixed, {3, 2, 4, 4});
  CHECK(old.fanouts == std::vector<int64_t>{3, 2});
  CHECK_THAT(old.note, Catch::Contains("--fanouts 3,2,4,4 counts every layer"));
  CHECK_THAT(old.note, Catch::Contains("over 2 hops, so 3,2 are used"));
  o.sampler.fanouts = old.fanouts;
  const std::vector<float> hops = logits(mixed, o);
  CHECK(per_batch(mixed, o) == hops);
  // The old list's four hops: the two unread ones change no logit beyond float rounding (the
  // samples' first two hops are the same draws; the layers' products run over more rows).
  InferenceOptions four = o;
  four.sampler.fanouts = {3, 2, 4, 4};
  const std::vector<float> before = per_batch(mixed, four);
  REQUIRE(before.size() == hops.size());
  double largest = 0.0;
  for (std::size_t i = 0; i < hops.size(); ++i) largest = std::max(largest, std::fabs(double(before[i]) - double(hops[i])));
  INFO("largest difference " << largest);
  CHECK(largest <= 1e-6);
  CHECK_THROWS_WITH(infer_node_logits(mixed, g, x, nodes, four),
                    Catch::Contains("4 fan-outs for a model of 2 message-passing layers (of 4 layers)"));
  CHECK_THROWS_WITH(model_fanouts(mixed, {3, 2, 4}), Catch::Contains("3 fan-outs for a model of 2"));
  NodeClassifier head_only({{"layers", {layer("node_linear", {{"in_channels", 4}, {"out_channels", 3}, {"seed", 3}})}}},
                           registry);
  CHECK_THROWS_WITH(model_fanouts(head_only, {3}), Catch::Contains("no message-passing layer"));
}
