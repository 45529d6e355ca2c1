// train_node_runs: the runs of `node-classify train --runs N` as a library call, each run the
// run train_node_classifier makes alone with its seed, and the summary written after each.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>

#include "attend/core/registry.hpp"
#include "attend/graph/builtin_layers.hpp"
#include "attend/graph/node_runs.hpp"
#include "random_graphs.hpp"
#include "temp_dir.hpp"

using namespace attend;
using namespace attend::graph;

namespace {

// A random typed graph of 40 nodes, two classes: 20 training, 10 validation, 10 test nodes.
NodeDataset split_dataset() {
  NodeDataset d = testing::random_typed_dataset(40, 160, 2, 5);
  d.num_classes = 2;
  Rng rng(6);
  for (int64_t i = 0; i < 40; ++i) {
    d.labels[i] = static_cast<int64_t>(rng.below(2));
    (i < 20 ? d.train : i < 30 ? d.val : d.test).push_back(i);
  }
  return d;
}

NodeModelSpec small_gat_spec() {
  const Json model = {{"layers", Json::array({{{"type", "gat"}, {"out_channels", 4}, {"heads", 2}, {"dropout", 0.3}},
                                              {{"type", "gat"}}})},
                      {"activation", "elu"}, {"optimizer", {{"type", "adam"}, {"lr", 0.05}}},
                      {"epochs", 6}, {"patience", 0}, {"normalize_features", false}};
  return NodeModelSpec::from_json(model, "test");
}

}  // namespace

TEST_CASE("train_node_runs: each run is the single run of its seed, and the summary holds them all", "[graph]") {
  Registry registry;
  register_graph_layers(registry);
  const PreparedNodeData data = prepare_node_data(split_dataset(), false);
  const NodeModelSpec spec = small_gat_spec();
  testing::TempDir dir;
  NodeRunsOptions o;
  o.runs = 3;
  o.run.seed = 10;
  o.run.progress.mode = ProgressMode::kSilent;
  o.json_path = (dir.path() / "runs.json").string();
  std::vector<int> seen;
  const NodeRunsResult r = train_node_runs(data, spec, registry, o, [&](int run, const NodeRunResult& result) {
    seen.push_back(run);
    CHECK(result.seed == 10 + static_cast<uint64_t>(run));
  });
  CHECK(seen == std::vector<int>{0, 1, 2});
  REQUIRE(r.runs.size() == 3);
  for (int run = 0; run < 3; ++run) {
    NodeRunOptions alone = o.run;
    alone.seed = 10 + static_cast<uint64_t>(run);
    const NodeRunResult single = train_node_classifier(data, spec, registry, alone);
    CHECK(single.test_acc == r.runs[run].test_acc);
    CHECK(single.val_acc == r.runs[run].val_acc);
    CHECK(single.history.size() == r.runs[run].history.size());
  }
  const RunStatistics stats = run_statistics(r.runs);
  CHECK(r.statistics.test_mean == stats.test_mean);

  std::ifstream file(o.json_path);
  const Json summary = Json::parse(file);
  CHECK(summary == with_short_floats(node_runs_summary(data.dataset.name, spec, o, r.runs)));
  CHECK(summary.at("complete") == true);
  CHECK(summary.at("runs").size() == 3);
  CHECK(summary.at("runs")[2].at("seed") == 12);
  CHECK(summary.at("runs")[0].at("history").size() == 6);
  CHECK(summary.at("inference") == Json({{"mode", "full"}}));
  CHECK(summary.at("processes") == 1);
  CHECK_FALSE(summary.contains("sampling"));
  // Part of the series is marked incomplete.
  CHECK(node_runs_summary(data.dataset.name, spec, o, {r.runs[0]}).at("complete") == false);
}
