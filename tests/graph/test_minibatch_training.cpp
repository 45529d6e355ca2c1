// Sampled mini-batch training: every built-in layer trains on sampled blocks, fan-outs -1 and
// one batch give the full-batch gradient, a batch's shards add up to it, draws are keyed (not
// streamed), and one thread gives the bits of two.
#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "attend/core/communicator.hpp"
#include "attend/core/error.hpp"
#include "attend/core/ops/loss.hpp"
#include "attend/core/parameter_arena.hpp"
#include "attend/core/registry.hpp"
#include "attend/graph/builtin_layers.hpp"
#include "attend/graph/minibatch_training.hpp"
#include "attend/graph/node_inference.hpp"
#include "attend/graph/node_model_spec.hpp"
#include "attend/graph/node_training.hpp"
#include "random_graphs.hpp"
#include "scoped_threads.hpp"

using namespace attend;
using namespace attend::graph;

namespace {

// A graph of n nodes in two classes that a graph model can learn: a node's features are
// noise plus 0.5 on the feature of its class, and only edges within a class are kept (so
// neighbours average the noise away); typed with `relations` relations when above 0. Splits
// 0..59, 60..99, the rest.
NodeDataset learnable_dataset(int64_t n, int64_t edges, int64_t relations, uint64_t seed) {
  NodeDataset d = relations > 0 ? testing::random_typed_dataset(n, edges, relations, seed)
                                : testing::random_dataset(n, edges, seed);
  const int64_t f = 6;
  Rng rng(seed + 1);
  d.num_classes = 2;
  for (int64_t i = 0; i < n; ++i) d.labels[i] = static_cast<int64_t>(rng.below(2));
  std::vector<int64_t> rows, cols;
  std::vector<float> values;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < f; ++j) {
      rows.push_back(i);
      cols.push_back(j);
      values.push_back(rng.uniform() + (j == d.labels[i] ? 0.5f : 0.0f));
    }
  }
  d.features = SparseMatrix::from_triplets(n, f, rows, cols, values);
  NodeDataset kept = d;
  kept.edge_src.clear();
  kept.edge_dst.clear();
  kept.edge_type.clear();
  for (std::size_t e = 0; e < d.edge_src.size(); ++e) {
    if (d.labels[d.edge_src[e]] != d.labels[d.edge_dst[e]]) continue;
    kept.edge_src.push_back(d.edge_src[e]);
    kept.edge_dst.push_back(d.edge_dst[e]);
    if (!d.edge_type.empty()) kept.edge_type.push_back(d.edge_type[e]);
  }
  kept.train.clear();
  kept.val.clear();
  kept.test.clear();
  for (int64_t i = 0; i < n; ++i) (i < 60 ? kept.train : i < 100 ? kept.val : kept.test).push_back(i);
  return kept;
}

NodeModelSpec two_layer_spec(Json hidden, Json output, int epochs) {
  return NodeModelSpec::from_json({{"layers", Json::array({std::move(hidden), std::move(output)})},
                                   {"optimizer", {{"type", "adam"}, {"lr", 0.01}}},
                                   {"epochs", epochs},
                                   {"patience", 0},
                                   {"normalize_features", false}},
                                  "test");
}

MiniBatchOptions minibatch(std::vector<int64_t> fanouts, int64_t batch_size) {
  MiniBatchOptions o;
  o.sampler.fanouts = std::move(fanouts);
  o.batch_size = batch_size;
  return o;
}

Registry graph_registry() {
  Registry registry;
  register_graph_layers(registry);
  return registry;
}

// The parameters of a checkpoint, flattened in arena order.
std::vector<float> trained_parameters(const PreparedNodeData& data, const NodeModelSpec& spec,
                                      const Registry& registry, NodeRunOptions o) {
  CheckpointData checkpoint;
  o.checkpoint_out = &checkpoint;
  o.progress.mode = ProgressMode::kSilent;
  train_node_classifier(data, spec, registry, o);
  const LoadedNodeModel loaded = node_model_from_checkpoint(checkpoint, registry, "memory");
  ParameterArena arena(loaded.model->named_parameters());
  return std::vector<float>(arena.values().begin(), arena.values().end());
}

// The gradient of a model's parameters after `accumulate` ran its backward passes.
std::vector<float> gradient_of(NodeClassifier& model, const std::function<void(ParameterArena&)>& accumulate) {
  ParameterArena arena(model.named_parameters());
  arena.zero_grad();
  accumulate(arena);
  return std::vector<float>(arena.grads().begin(), arena.grads().end());
}

void check_close(const std::vector<float>& a, const std::vector<float>& b, double margin) {
  REQUIRE(a.size() == b.size());
  double largest = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) largest = std::max(largest, std::fabs(double(a[i]) - double(b[i])));
  INFO("largest difference " << largest);
  CHECK(largest <= margin);
}

}  // namespace

TEST_CASE("every built-in node layer trains on sampled blocks unchanged", "[graph]") {
  testing::ScopedThreads threads(1);
  const Registry registry = graph_registry();
  struct Case {
    std::string name;
    Json hidden, output;
    int64_t relations;
  };
  const std::vector<Case> cases = {
      {"gat", {{"type", "gat"}, {"heads", 2}, {"out_channels", 4}, {"dropout", 0.2}}, {{"type", "gat"}}, 0},
      {"gatv2", {{"type", "gatv2"}, {"heads", 2}, {"out_channels", 4}}, {{"type", "gatv2"}}, 0},
      {"gcn", {{"type", "gcn"}, {"out_channels", 8}}, {{"type", "gcn"}}, 0},
      {"graph_transformer", {{"type", "graph_transformer"}, {"heads", 2}, {"out_channels", 4}},
       {{"type", "graph_transformer"}}, 0},
      {"graphormer", {{"type", "graphormer"}, {"heads", 2}, {"out_channels", 4}}, {{"type", "graphormer"}, {"heads", 1}}, 0},
      {"node_linear", {{"type", "gcn"}, {"out_channels", 8}}, {{"type", "node_linear"}}, 0},
      {"rgcn", {{"type", "rgcn"}, {"out_channels", 8}, {"num_relations", "auto"}}, {{"type", "rgcn"}, {"num_relations", "auto"}}, 3},
      {"rgat", {{"type", "rgat"}, {"out_channels", 8}, {"num_relations", "auto"}}, {{"type", "rgat"}, {"num_relations", "auto"}}, 3},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const PreparedNodeData data = prepare_node_data(learnable_dataset(200, 600, c.relations, 5), false);
    const NodeModelSpec spec = two_layer_spec(c.hidden, c.output, 30);
    NodeRunOptions o;
    o.seed = 3;
    o.progress.mode = ProgressMode::kSilent;
    o.minibatch = minibatch({4, 3}, 16);
    o.minibatch->sampler.per_relation = c.relations > 0;
    const NodeRunResult trained = train_node_classifier(data, spec, registry, o);
    o.epochs = 1;
    const NodeRunResult one_epoch = train_node_classifier(data, spec, registry, o);
    // Four steps of 16 seeds (the last of 12) per epoch; learning shows on the test split.
    CHECK(trained.epochs == 30);
    CHECK(trained.test_acc >= 0.85);
    CHECK(trained.test_acc > one_epoch.test_acc);
  }
}

TEST_CASE("with fan-outs -1 and the whole training split as one batch the gradient is the full-batch one",
          "[graph]") {
  testing::ScopedThreads threads(1);
  const Registry registry = graph_registry();
  const PreparedNodeData data = prepare_node_data(learnable_dataset(300, 900, 0, 7), false);
  const NodeDataset& d = data.dataset;
  const Json config = {{"layers", Json::array({{{"type", "gat"}, {"config", {{"in_channels", 6}, {"out_channels", 4}, {"heads", 2}, {"seed", 1}}}},
                                               {{"type", "gcn"}, {"config", {{"in_channels", 8}, {"out_channels", 2}, {"seed", 2}}}}})}};
  NodeClassifier model(config, registry);
  model.train();  // no dropout in this model: training mode draws nothing
  const std::vector<float> full = gradient_of(model, [&](ParameterArena&) {
    ops::cross_entropy(model.forward(data.features, data.graph, 0), d.labels, d.train).backward();
  });
  const MiniBatchOptions o = minibatch({-1, -1}, 60);
  const MiniBatchKeys keys = minibatch_keys(0);
  const NodeFeatureRows rows = in_memory_rows(data.features);
  const std::vector<float> sampled = gradient_of(model, [&](ParameterArena& arena) {
    minibatch_gradient(model, arena, Communicator::self(), data.graph, d.labels, rows, o, keys, d.train, 0);
  });
  check_close(sampled, full, 1e-6);
  CHECK(std::any_of(full.begin(), full.end(), [](float g) { return std::fabs(g) > 1e-3f; }));

  SECTION("a batch cut into shards has the gradient of the whole batch") {
    MiniBatchOptions sharded = minibatch({-1, -1}, 60);
    sharded.shards = 4;
    const std::vector<float> in_shards = gradient_of(model, [&](ParameterArena& arena) {
      minibatch_gradient(model, arena, Communicator::self(), data.graph, d.labels, rows, sharded, keys, d.train, 0);
    });
    check_close(in_shards, full, 1e-6);
  }
}

TEST_CASE("a shard's draws depend on its seed, batch number and shard, not on what ran before", "[graph]") {
  testing::ScopedThreads threads(1);
  const Registry registry = graph_registry();
  const PreparedNodeData data = prepare_node_data(learnable_dataset(300, 900, 0, 9), false);
  const Json config = {{"layers", Json::array({{{"type", "gat"}, {"config", {{"in_channels", 6}, {"out_channels", 4}, {"heads", 2}, {"dropout", 0.5}, {"seed", 1}}}},
                                               {{"type", "gat"}, {"config", {{"in_channels", 8}, {"out_channels", 2}, {"dropout", 0.5}, {"seed", 2}}}}})}};
  NodeClassifier model(config, registry);
  model.train();
  const MiniBatchOptions o = minibatch({3, 2}, 40);
  const MiniBatchKeys keys = minibatch_keys(11);
  const NodeFeatureRows rows = in_memory_rows(data.features);
  const std::vector<int64_t> seeds{4, 8, 15, 16, 23, 42};
  auto loss = [&](uint64_t batch, int64_t shard) {
    return shard_loss(model, data.graph, data.dataset.labels, rows, o, keys, seeds, batch, shard, 40).value().item();
  };
  const float first = loss(5, 1);
  loss(6, 0);  // other work in between
  loss(5, 2);
  CHECK(loss(5, 1) == first);
  CHECK(loss(7, 1) != first);  // another batch: another sample and other masks
  CHECK(loss(5, 0) != first);  // another shard: other masks
  // Six of the batch's 40 seeds: the shard's mean loss weighted by 6 / 40.
  model.eval();
  const float eval = loss(5, 1);
  const SampledSubgraph s = sample_neighbors(data.graph, seeds, [&] {
    NeighborSamplerOptions so = o.sampler;
    so.seed = keys.sampler;
    return so;
  }(), 5);
  std::vector<int64_t> labels;
  for (int64_t v : s.node_ids) labels.push_back(data.dataset.labels[v]);
  const float mean = ops::cross_entropy(model.forward(sampled_features(data.features, s.node_ids), s.graph, 0), labels,
                                        s.seed_positions).value().item();
  CHECK(eval == Approx(mean * 6.0 / 40.0).epsilon(1e-6));
}

TEST_CASE("sampled training gives the same model on one thread as on two, bit for bit", "[graph]") {
  const Registry registry = graph_registry();
  const PreparedNodeData data = prepare_node_data(learnable_dataset(400, 2000, 0, 13), false);
  const NodeModelSpec spec = two_layer_spec({{"type", "gat"}, {"heads", 4}, {"out_channels", 4}, {"dropout", 0.3}},
                                            {{"type", "gat"}}, 4);
  NodeRunOptions o;
  o.seed = 21;
  o.minibatch = minibatch({5, 3}, 16);
  o.inference.mode = InferenceMode::kLayerwise;
  o.inference.batch_size = 50;
  std::vector<float> one, two;
  {
    testing::ScopedThreads threads(1);
    one = trained_parameters(data, spec, registry, o);
  }
  {
    testing::ScopedThreads threads(2);
    two = trained_parameters(data, spec, registry, o);
  }
  CHECK(one == two);
  o.seed = 22;
  testing::ScopedThreads threads(1);
  CHECK(trained_parameters(data, spec, registry, o) != one);  // the seed matters
}

TEST_CASE("sampled training refuses fan-outs that are not one per message-passing layer and records them in the "
          "checkpoint",
          "[graph]") {
  testing::ScopedThreads threads(1);
  const Registry registry = graph_registry();
  const PreparedNodeData data = prepare_node_data(learnable_dataset(150, 400, 0, 17), false);
  const NodeModelSpec spec = two_layer_spec({{"type", "gcn"}, {"out_channels", 4}}, {{"type", "gcn"}}, 2);
  NodeRunOptions o;
  o.progress.mode = ProgressMode::kSilent;
  o.minibatch = minibatch({5, 5, 5}, 20);
  CHECK_THROWS_WITH(train_node_classifier(data, spec, registry, o), Catch::Contains("3 fan-outs for a model of 2 message-passing layers"));
  o.minibatch = minibatch({5, 0}, 20);
  CHECK_THROWS_AS(train_node_classifier(data, spec, registry, o), InputError);
  o.minibatch = minibatch({5, -1}, 20);
  CheckpointData checkpoint;
  o.checkpoint_out = &checkpoint;
  train_node_classifier(data, spec, registry, o);
  CHECK(checkpoint.model["training"]["fanouts"] == Json::array({5, -1}));
  CHECK(checkpoint.model["training"]["batch_size"] == 20);
  // An ordinary model: it loads and predicts as any other.
  LoadedNodeModel loaded = node_model_from_checkpoint(checkpoint, registry, "memory");
  CHECK(predict_logits(*loaded.model, data).dim(0) == 150);
}

TEST_CASE("the per-epoch history scores the training split except under sampled inference", "[graph]") {
  testing::ScopedThreads threads(1);
  const Registry registry = graph_registry();
  const PreparedNodeData data = prepare_node_data(learnable_dataset(150, 400, 0, 17), false);
  REQUIRE_FALSE(data.dataset.val.empty());
  const NodeModelSpec spec = two_layer_spec({{"type", "gcn"}, {"out_channels", 4}}, {{"type", "gcn"}}, 2);
  NodeRunOptions o;
  o.progress.mode = ProgressMode::kSilent;
  o.epochs = 3;
  o.minibatch = minibatch({5, 5}, 20);
  for (const InferenceMode mode : {InferenceMode::kLayerwise, InferenceMode::kSampled}) {
    o.inference.mode = mode;
    o.inference.sampler.fanouts = {5, 5};
    const NodeRunResult r = train_node_classifier(data, spec, registry, o);
    REQUIRE(r.history.size() == 3);
    for (const NodeEpoch& e : r.history) {
      CHECK(std::isfinite(e.val_acc));
      // Sampled inference would run the whole model on every training node each epoch.
      CHECK(std::isnan(e.train_acc) == (mode == InferenceMode::kSampled));
    }
  }
}

TEST_CASE("batch shards are contiguous, cover the batch and differ in size by at most one", "[graph]") {
  const std::vector<int64_t> batch{9, 8, 7, 6, 5, 4, 3};
  const auto shards = batch_shards(batch, 3);
  REQUIRE(shards.size() == 3);
  CHECK(shards[0] == std::vector<int64_t>{9, 8, 7});
  CHECK(shards[1] == std::vector<int64_t>{6, 5});
  CHECK(shards[2] == std::vector<int64_t>{4, 3});
  CHECK(batch_shards({1}, 2)[1].empty());
  CHECK_THROWS_AS(batch_shards(batch, 0), InputError);
  // An epoch's batches: a shuffle of the training nodes keyed by the epoch.
  const MiniBatchKeys keys = minibatch_keys(4);
  CHECK(epoch_batches(batch, 3, keys, 2) == epoch_batches(batch, 3, keys, 2));
  CHECK(epoch_batches(batch, 3, keys, 2) != epoch_batches(batch, 3, keys, 3));
}

TEST_CASE("max_batches trains on the first batches of each epoch and changes nothing when it does not bind",
          "[graph]") {
  testing::ScopedThreads threads(1);
  const Registry registry = graph_registry();
  const PreparedNodeData data = prepare_node_data(learnable_dataset(150, 400, 0, 17), false);
  const NodeModelSpec spec = two_layer_spec({{"type", "gcn"}, {"out_channels", 4}}, {{"type", "gcn"}}, 2);
  NodeRunOptions o;
  o.seed = 5;
  o.minibatch = minibatch({5, 5}, 20);  // 60 training nodes: 3 batches per epoch
  const std::vector<float> whole = trained_parameters(data, spec, registry, o);
  o.minibatch->max_batches = 3;
  CHECK(trained_parameters(data, spec, registry, o) == whole);
  o.minibatch->max_batches = 2;
  const std::vector<float> two = trained_parameters(data, spec, registry, o);
  CHECK(two != whole);
  o.minibatch->max_batches = 1;
  CHECK(trained_parameters(data, spec, registry, o) != two);
}

TEST_CASE("fan-outs count message-passing layers: an old list of one per layer trains the model its hops train",
          "[graph]") {
  // A gcn and a node_linear head: one hop. Before, --fanouts took one per layer (5,5) and
  // the sampler drew a second hop that no layer read; the list is mapped to its first entry,
  // so the model is the one the hop list (5) trains, bit for bit.
  testing::ScopedThreads threads(1);
  const Registry registry = graph_registry();
  const PreparedNodeData data = prepare_node_data(learnable_dataset(150, 400, 0, 17), false);
  const NodeModelSpec spec = two_layer_spec({{"type", "gcn"}, {"out_channels", 4}}, {{"type", "node_linear"}}, 3);
  NodeRunOptions o;
  o.seed = 5;
  o.minibatch = minibatch({5}, 20);
  o.inference.mode = InferenceMode::kSampled;
  o.inference.sampler.fanouts = {3};
  const std::vector<float> hops = trained_parameters(data, spec, registry, o);
  o.minibatch = minibatch({5, 5}, 20);
  o.inference.sampler.fanouts = {3, 7};
  std::ostringstream log;
  o.progress.out = &log;
  o.progress.mode = ProgressMode::kPlain;
  CheckpointData checkpoint;
  o.checkpoint_out = &checkpoint;
  const NodeRunResult mapped = train_node_classifier(data, spec, registry, o);
  const LoadedNodeModel loaded = node_model_from_checkpoint(checkpoint, registry, "memory");
  ParameterArena arena(loaded.model->named_parameters());
  CHECK(std::vector<float>(arena.values().begin(), arena.values().end()) == hops);
  CHECK_THAT(log.str(), Catch::Contains("attend: note: --fanouts 5,5 counts every layer"));
  CHECK_THAT(log.str(), Catch::Contains("so 5 are used"));
  CHECK_THAT(log.str(), Catch::Contains("--fanouts 3,7 counts every layer"));
  CHECK(checkpoint.model["training"]["fanouts"] == Json::array({5}));  // what the sampler drew
  CHECK(std::isfinite(mapped.test_acc));
  o.progress.mode = ProgressMode::kSilent;
  o.minibatch = minibatch({5, 5, 5}, 20);
  CHECK_THROWS_WITH(train_node_classifier(data, spec, registry, o),
                    Catch::Contains("3 fan-outs for a model of 1 message-passing layer (of 2 layers)"));
}

TEST_CASE("models whose layers all pass messages train on the fan-outs given, as before", "[graph]") {
  // The gat presets' shape: every layer a hop, so the list is used as given (the sampled
  // batches are those of sample_neighbors with it, as before) and recorded as given.
  testing::ScopedThreads threads(1);
  const Registry registry = graph_registry();
  const PreparedNodeData data = prepare_node_data(learnable_dataset(150, 400, 0, 17), false);
  const NodeModelSpec spec =
      two_layer_spec({{"type", "gat"}, {"heads", 2}, {"out_channels", 4}}, {{"type", "gat"}, {"heads", 1}}, 2);
  NodeClassifier model(resolve_model_config(spec, data.dataset, data.graph, 0, registry), registry);
  REQUIRE(model.message_passing_hops() == 2);
  const ModelFanouts fitted = model_fanouts(model, {5, -1});
  CHECK(fitted.fanouts == std::vector<int64_t>{5, -1});
  CHECK(fitted.note.empty());
  NodeRunOptions o;
  o.minibatch = minibatch({5, -1}, 20);
  CheckpointData checkpoint;
  o.checkpoint_out = &checkpoint;
  o.progress.mode = ProgressMode::kSilent;
  train_node_classifier(data, spec, registry, o);
  CHECK(checkpoint.model["training"]["fanouts"] == Json::array({5, -1}));
  o.minibatch = minibatch({5}, 20);
  CHECK_THROWS_WITH(train_node_classifier(data, spec, registry, o),
                    Catch::Contains("1 fan-outs for a model of 2 message-passing layers: give one per"));
}
