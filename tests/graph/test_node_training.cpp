#include <catch2/catch.hpp>

#include <cmath>

#include "attend/core/registry.hpp"
#include "attend/graph/builtin_layers.hpp"
#include "attend/graph/node_training.hpp"
#include "random_graphs.hpp"

using namespace attend;
using namespace attend::graph;

TEST_CASE("without a validation split the last epoch's model is kept, not the best on training",
          "[graph]") {
  Registry registry;
  register_graph_layers(registry);
  NodeDataset d = testing::random_typed_dataset(40, 160, 3, 31);
  d.num_classes = 2;
  Rng rng(32);
  for (int64_t i = 0; i < 40; ++i) d.labels[i] = static_cast<int64_t>(rng.below(2));
  for (int64_t i = 0; i < 20; ++i) d.train.push_back(i);
  for (int64_t i = 20; i < 40; ++i) d.test.push_back(i);
  // A learning rate far too high: the training loss jumps around, so its best epoch is
  // rarely the last.
  const Json model = {{"layers", Json::array({{{"type", "rgcn"}, {"out_channels", 8}, {"num_relations", "auto"}},
                                              {{"type", "rgcn"}, {"num_relations", "auto"}}})},
                      {"activation", "relu"}, {"optimizer", {{"type", "sgd"}, {"lr", 20.0}}},
                      {"epochs", 12}, {"patience", 0}, {"normalize_features", false}};
  const NodeModelSpec spec = NodeModelSpec::from_json(model, "test");
  const PreparedNodeData data = prepare_node_data(d, false);
  NodeRunOptions o;
  o.progress.mode = ProgressMode::kSilent;
  // The accuracy after exactly k epochs: a run of k epochs keeps its last model.
  auto after = [&](int epochs) {
    o.epochs = epochs;
    return train_node_classifier(data, spec, registry, o);
  };
  const NodeRunResult full = after(12);
  CHECK(full.epochs == 12);
  CHECK(full.best_epoch == 11);
  // Deterministic, and the result is that of epoch 12, not of an earlier epoch.
  CHECK(after(12).test_acc == full.test_acc);
  CHECK(std::isnan(full.val_acc));
}

TEST_CASE("a model file names its stopping rule", "[graph]") {
  const Json layers = Json::array({{{"type", "gat"}, {"heads", 1}}});
  CHECK(NodeModelSpec::from_json({{"layers", layers}}, "m").stopping == "gat-reference");
  const NodeModelSpec spec = NodeModelSpec::from_json({{"layers", layers}, {"stopping", "gat-accuracy"}}, "m");
  CHECK(stopping_rule(spec.stopping) == StoppingRule::kGatAccuracy);
  CHECK(stopping_rule("gat-reference") == StoppingRule::kGatReference);
  CHECK_THROWS_WITH(NodeModelSpec::from_json({{"layers", layers}, {"stopping", "val-loss"}}, "m"),
                    Catch::Contains("unknown stopping rule 'val-loss'"));
}
