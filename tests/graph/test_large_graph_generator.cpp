// The large-graph generator: a small graph written to a file, read back whole and without
// its features, the same for a seed, and with labels that features and edges predict.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "attend/core/error.hpp"
#include "attend/core/hdf5_file.hpp"
#include "attend/graph/graph_store.hpp"
#include "attend/graph/large_graph_generator.hpp"
#include "scoped_threads.hpp"
#include "temp_dir.hpp"

using namespace attend;
using namespace attend::graph;
using Catch::Matchers::Contains;

namespace {
LargeGraphOptions small_options(uint64_t seed) {
  LargeGraphOptions o;
  o.nodes = 3000;
  o.edges = 12000;
  o.features = 8;
  o.classes = 4;
  o.signal = 1.0;
  o.seed = seed;
  o.file.chunk_rows = 100;
  return o;
}
}  // namespace

TEST_CASE("the large-graph generator writes a graph file with dense row-chunked features", "[graph][io]") {
  testing::TempDir dir;
  std::vector<std::string> stages;
  const LargeGraphSummary s = write_large_graph(dir.file("g.h5"), small_options(1),
                                                [&](const std::string& stage, int64_t, int64_t) { stages.push_back(stage); });
  CHECK(dir.entries() == std::vector<std::string>{"g.h5"});
  CHECK(std::find(stages.begin(), stages.end(), "edges") != stages.end());
  CHECK(stages.back() == "features");
  const NodeDataset d = load_node_dataset_h5(dir.file("g.h5"));
  CHECK(d.num_nodes == 3000);
  CHECK(d.num_edges() == 12000);
  CHECK_FALSE(d.directed);
  CHECK(d.num_features() == 8);
  CHECK(d.num_classes == 4);
  CHECK(s.train == static_cast<int64_t>(d.train.size()));
  CHECK(d.train.size() == 240);  // 8 %
  CHECK(d.val.size() == 60);     // 2 %
  CHECK(d.train.size() + d.val.size() + d.test.size() == 3000);
  const Hdf5File file = Hdf5File::open(dir.file("g.h5"));
  CHECK(file.dataset_chunk_shape(kDenseFeaturesPath) == Shape{100, 8});

  // Labels are learnable: most edges stay in their class (homophily 0.8 plus chance), and
  // the nearest class mean of a node's features is mostly its class.
  int64_t same = 0;
  for (int64_t e = 0; e < d.num_edges(); ++e) same += d.labels[d.edge_src[e]] == d.labels[d.edge_dst[e]];
  CHECK(static_cast<double>(same) / d.num_edges() > 0.75);
  const Tensor x = d.features.to_dense();  // [N, F]
  std::vector<double> mean(4 * 8, 0.0), count(4, 0.0);
  for (int64_t i = 0; i < 3000; ++i) {
    count[d.labels[i]] += 1;
    for (int64_t c = 0; c < 8; ++c) mean[d.labels[i] * 8 + c] += x.at({i, c});
  }
  int64_t nearest_is_label = 0;
  for (int64_t i = 0; i < 3000; ++i) {
    int64_t best = 0;
    double best_distance = INFINITY;
    for (int64_t k = 0; k < 4; ++k) {
      double distance = 0.0;
      for (int64_t c = 0; c < 8; ++c) distance += std::pow(x.at({i, c}) - mean[k * 8 + c] / count[k], 2);
      if (distance < best_distance) best_distance = distance, best = k;
    }
    nearest_is_label += best == d.labels[i];
  }
  CHECK(nearest_is_label > 3000 * 0.6);

  // The same graph opened without its features reads the same rows.
  GraphStructure g = load_graph_structure_h5(dir.file("g.h5"), {4096, RowSelection::kHyperslabs, false});
  CHECK(g.dataset.edge_src == d.edge_src);
  const Tensor rows = g.features->gather({2999, 0, 17});
  for (int64_t c = 0; c < 8; ++c) {
    CHECK(rows.at({0, c}) == x.at({2999, c}));
    CHECK(rows.at({2, c}) == x.at({17, c}));
  }
}

TEST_CASE("the large-graph generator gives the same file for a seed whatever the thread count", "[graph][io]") {
  testing::TempDir dir;
  {
    testing::ScopedThreads one(1);
    write_large_graph(dir.file("a.h5"), small_options(5));
  }
  {
    testing::ScopedThreads two(2);
    write_large_graph(dir.file("b.h5"), small_options(5));
  }
  write_large_graph(dir.file("c.h5"), small_options(6));
  const NodeDataset a = load_node_dataset_h5(dir.file("a.h5"));
  const NodeDataset b = load_node_dataset_h5(dir.file("b.h5"));
  const NodeDataset c = load_node_dataset_h5(dir.file("c.h5"));
  CHECK(a.features.values() == b.features.values());
  CHECK(a.edge_dst == b.edge_dst);
  CHECK(a.train == b.train);
  CHECK(a.features.values() != c.features.values());
  CHECK(a.edge_dst != c.edge_dst);
}

TEST_CASE("the large-graph generator refuses options it cannot honour", "[graph]") {
  testing::TempDir dir;
  LargeGraphOptions o = small_options(0);
  o.nodes = 1;
  CHECK_THROWS_WITH(write_large_graph(dir.file("x.h5"), o), Contains("2 nodes"));
  o = small_options(0);
  o.homophily = 1.5;
  CHECK_THROWS_WITH(write_large_graph(dir.file("x.h5"), o), Contains("homophily"));
  o = small_options(0);
  o.file.layout = FeatureLayout::kCsr;
  CHECK_THROWS_WITH(write_large_graph(dir.file("x.h5"), o), Contains("dense"));
  o = small_options(0);
  o.train_fraction = 0.9;
  o.val_fraction = 0.2;
  CHECK_THROWS_AS(write_large_graph(dir.file("x.h5"), o), InputError);
  CHECK(dir.entries().empty());
}
