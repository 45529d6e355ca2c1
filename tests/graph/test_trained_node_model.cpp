// A trained node classifier applied to a dataset on disk (trained_node_model.hpp), in memory
// and with its features out of core, the statistics of several runs, and the prediction files.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "attend/core/error.hpp"
#include "attend/core/hdf5_file.hpp"
#include "attend/core/ops/softmax.hpp"
#include "attend/core/random.hpp"
#include "attend/core/registry.hpp"
#include "attend/graph/builtin_layers.hpp"
#include "attend/graph/graph_store.hpp"
#include "attend/graph/node_prediction_files.hpp"
#include "attend/graph/trained_node_model.hpp"
#include "random_graphs.hpp"
#include "temp_dir.hpp"

using namespace attend;
using namespace attend::graph;
using attend::testing::TempDir;

namespace {

// 30 nodes of 3 classes, untyped, train / val / test = 12 / 9 / 9.
NodeDataset three_class_dataset() {
  NodeDataset d = testing::random_dataset(30, 90, 3);
  d.num_classes = 3;
  for (int64_t i = 0; i < 30; ++i) d.labels[i] = i % 3;
  for (int64_t i = 0; i < 30; ++i) (i < 12 ? d.train : i < 21 ? d.val : d.test).push_back(i);
  return d;
}

NodeModelSpec small_gcn() {
  return NodeModelSpec::from_json({{"layers", Json::array({{{"type", "gcn"}, {"out_channels", 6}}, {{"type", "gcn"}}})},
                                   {"activation", "relu"}, {"optimizer", {{"type", "adam"}, {"lr", 0.05}}},
                                   {"epochs", 5}, {"patience", 0}, {"normalize_features", false}},
                                  "test");
}

/// The setup of the saved-model cases: a registry of the graph layers, and a temporary folder
/// holding `d` as graph.h5 (in `layout`) and model.h5, a model of `spec` trained on it.
struct SavedModel {
  Registry registry;
  TempDir tmp;
  NodeRunResult run;
  SavedModel(const NodeDataset& d, const NodeModelSpec& spec, GraphFileOptions layout = {}) {
    register_graph_layers(registry);
    save_node_dataset(graph(), d, layout);
    NodeRunOptions o;
    o.progress.mode = ProgressMode::kSilent;
    o.save_path = model();
    run = train_node_classifier(prepare_node_data(d, spec.normalize_features), spec, registry, o);
  }
  std::string graph() const { return tmp.file("graph.h5"); }
  std::string model() const { return tmp.file("model.h5"); }
};

}  // namespace

TEST_CASE("a saved model applied to the dataset on disk gives the trained model's logits and scores", "[graph]") {
  const NodeDataset d = three_class_dataset();
  const SavedModel saved(d, small_gcn());
  const Registry& registry = saved.registry;
  const TempDir& tmp = saved.tmp;
  const NodeRunResult& run = saved.run;

  TrainedNodeModel m = load_trained_node_model(saved.graph(), saved.model(), registry);
  CHECK(m.checkpoint == saved.model());
  const Tensor logits = class_logits(m);  // [30, 3]
  REQUIRE(logits.shape() == Shape{30, 3});
  const std::vector<SplitScore> scores = score_splits(logits, m.data.dataset);
  REQUIRE(scores.size() == 3);
  CHECK(scores[0].split == "train");
  CHECK(scores[1].split == "val");
  CHECK(scores[2].split == "test");
  CHECK(scores[1].nodes == 9);
  CHECK(scores[1].accuracy == run.val_acc);
  CHECK(scores[2].accuracy == run.test_acc);
  // The loss is the mean cross-entropy over the split, computed here by hand.
  double loss = 0.0;
  for (int64_t i : d.test) {
    const float* row = logits.data() + i * 3;
    const double lse = std::log(std::exp(row[0]) + std::exp(row[1]) + std::exp(row[2]));
    loss += lse - row[d.labels[i]];
  }
  CHECK(scores[2].loss == Approx(loss / 9.0).epsilon(1e-5));

  // A dataset with another number of classes is refused, naming the checkpoint.
  NodeDataset four = d;
  four.num_classes = 4;
  save_node_dataset(tmp.file("four.h5"), four);
  TrainedNodeModel wrong = load_trained_node_model(tmp.file("four.h5"), tmp.file("model.h5"), registry);
  try {
    class_logits(wrong);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.file() == tmp.file("model.h5"));
    CHECK(std::string(e.what()).find("predicts 3 classes, the dataset has 4") != std::string::npos);
    CHECK(std::string(e.what()).find(tmp.file("four.h5")) != std::string::npos);  // the data named too
  }
}

namespace {
/// 80 nodes of 3 classes on a ring with chords, [80, 300] positive features of which about a
/// third are stored (some rows empty), drawn from `seed`: wide enough that a dense product
/// of the rows adds them in another order than the sparse one.
NodeDataset wide_feature_dataset(uint64_t seed) {
  Rng rng(seed);
  NodeDataset d;
  d.name = "wide";
  d.num_nodes = 80;
  d.num_classes = 3;
  std::vector<int64_t> row, col;
  std::vector<float> value;
  for (int64_t i = 0; i < 80; ++i) {
    for (int64_t c = 0; c < 300 && i % 13 != 5; ++c) {
      if (rng.uniform() < 0.35f) {
        row.push_back(i);
        col.push_back(c);
        value.push_back(rng.uniform(0.01f, 2.0f));
      }
    }
    d.labels.push_back(i % 3);
    d.edge_src.insert(d.edge_src.end(), {i, i});
    d.edge_dst.insert(d.edge_dst.end(), {(i + 1) % 80, (i * 7 + 3) % 80});
    (i % 4 == 0 ? d.train : i % 4 == 1 ? d.val : d.test).push_back(i);
  }
  d.features = SparseMatrix::from_triplets(80, 300, row, col, value);
  return d;
}

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && std::memcmp(a.data(), b.data(), sizeof(float) * a.numel()) == 0;
}
}  // namespace

TEST_CASE("a saved model with its features out of core gives the in-memory logits bit for bit", "[graph][io]") {
  NodeModelSpec spec = small_gcn();
  spec.normalize_features = true;
  const SavedModel saved(wide_feature_dataset(4), spec, {FeatureLayout::kDense, 16, false});
  const Registry& registry = saved.registry;
  const TempDir& tmp = saved.tmp;

  TrainedNodeModel in_memory = load_trained_node_model(tmp.file("graph.h5"), tmp.file("model.h5"), registry);
  TrainedNodeModel out_of_core =
      load_trained_node_model_out_of_core(tmp.file("graph.h5"), tmp.file("model.h5"), registry, 20 * 300 * 4);
  TrainedNodeModel uncached = load_trained_node_model_out_of_core(tmp.file("graph.h5"), tmp.file("model.h5"), registry, 0);
  CHECK_FALSE(out_of_core.data.features.is_sparse());
  CHECK(out_of_core.data.dataset.num_features() == 300);
  InferenceOptions layerwise;
  layerwise.mode = InferenceMode::kLayerwise;
  layerwise.batch_size = 24;
  InferenceOptions sampled = layerwise;
  sampled.mode = InferenceMode::kSampled;
  sampled.sampler.fanouts = {2, 3};
  for (const InferenceOptions& inference : {layerwise, sampled}) {
    INFO(inference_mode_name(inference.mode));
    const Tensor expected = class_logits(in_memory, nullptr, inference);  // [80, 3]
    const Tensor from_file = class_logits(out_of_core, nullptr, inference);
    CHECK(same_bits(from_file, expected));
    CHECK(same_bits(class_logits(uncached, nullptr, inference), expected));
    const std::vector<SplitScore> scores = score_splits(from_file, out_of_core.data.dataset);
    const std::vector<SplitScore> memory_scores = score_splits(expected, in_memory.data.dataset);
    REQUIRE(scores.size() == 3);
    for (std::size_t s = 0; s < 3; ++s) CHECK(scores[s].loss == memory_scores[s].loss);
  }
  // Full inference needs the whole matrix; the rows come from a graph file only.
  try {
    class_logits(out_of_core);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.file() == tmp.file("model.h5"));
    CHECK(std::string(e.what()).find("layer-wise or sampled inference") != std::string::npos);
  }
  std::ofstream(tmp.file("graph.txt")) << "0 1\n";
  CHECK_THROWS_AS(load_trained_node_model_out_of_core(tmp.file("graph.txt"), tmp.file("model.h5"), registry, 0),
                  InputError);
}

TEST_CASE("run_statistics: mean and sample standard deviation, NaN for a missing split", "[graph]") {
  std::vector<NodeRunResult> runs(3);
  runs[0].val_acc = 0.5;
  runs[1].val_acc = 0.7;
  runs[2].val_acc = 0.6;
  const RunStatistics s = run_statistics(runs);
  CHECK(s.val_mean == Approx(0.6));
  CHECK(s.val_sd == Approx(0.1));
  CHECK(std::isnan(s.test_mean));
  runs.resize(1);
  CHECK(run_statistics(runs).val_sd == 0.0);
  CHECK(std::isnan(run_statistics({}).val_mean));
}

TEST_CASE("the predictions TSV names each node's most probable class, and the attention file holds each layer", "[graph]") {
  TempDir tmp;
  NodeDataset d = three_class_dataset();
  d.class_names = {"a", "b", "c"};
  Tensor probs({30, 3}, 0.1f);
  for (int64_t i = 0; i < 30; ++i) probs[i * 3 + (i * 7) % 3] = 0.8f;
  write_node_predictions(tmp.file("p.tsv"), d, probs);
  std::ifstream tsv(tmp.file("p.tsv"));
  std::string line;
  REQUIRE(std::getline(tsv, line));
  CHECK(line == "node\tlabel\tprobability");
  int64_t rows = 0;
  while (std::getline(tsv, line)) {
    std::istringstream fields(line);
    std::string node, label;
    float p = 0.0f;
    fields >> node >> label >> p;
    CHECK(node == d.node_name(rows));
    CHECK(label == d.class_names[(rows * 7) % 3]);
    CHECK(p == 0.8f);
    ++rows;
  }
  CHECK(rows == 30);

  const PreparedNodeData data = prepare_node_data(d, false);
  std::vector<AttentionExport> attention(2);
  attention[1].view = &data.graph.looped();
  attention[1].weights = Tensor({data.graph.looped().num_edges(), 2}, 0.5f);
  write_attention_weights(tmp.file("a.h5"), data, attention);
  Hdf5File file = Hdf5File::open(tmp.file("a.h5"));
  CHECK_FALSE(file.exists("/layers/0"));
  CHECK(file.read_tensor("/layers/1/weights").shape() == Shape{data.graph.looped().num_edges(), 2});
  CHECK(file.read_int64("/layers/1/src") == data.graph.looped().src);
}
