#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <vector>

#include "attend/core/random.hpp"
#include "attend/graph/explain/node_explanation.hpp"
#include "attend/graph/node_model_spec.hpp"
#include "attend/graph/node_training.hpp"
#include "explain_models.hpp"
#include "scoped_threads.hpp"

using namespace attend;
using namespace attend::graph;
using attend::testing::featured_dataset;
using attend::testing::graph_registry;
using attend::testing::two_layer_model;

namespace {

// [n, f] features with each entry non-zero with probability `share` (values in [0.5, 1.5]).
SparseMatrix features_with_share(int64_t n, int64_t f, double share, uint64_t seed) {
  Rng rng(seed);
  std::vector<int64_t> rows, cols;
  std::vector<float> values;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < f; ++j) {
      if (rng.uniform() >= share) continue;
      rows.push_back(i);
      cols.push_back(j);
      values.push_back(0.5f + static_cast<float>(rng.uniform()));
    }
  }
  return SparseMatrix::from_triplets(n, f, rows, cols, values);
}

// `data` with its features in CSR form, as prepare_node_data held every feature matrix before.
PreparedNodeData in_csr_form(const PreparedNodeData& data) {
  PreparedNodeData csr = data;
  csr.features = NodeFeatures(std::make_shared<const SparseMatrix>(SparseMatrix::from_dense(to_dense(data.features))));
  return csr;
}

// A dataset with dense features (every entry non-zero) and train / validation / test splits.
NodeDataset dense_feature_dataset() {
  NodeDataset d = featured_dataset(90, 200, 7, 3, false, 21);
  d.train.clear();
  d.val.clear();
  d.test.clear();
  for (int64_t i = 0; i < d.num_nodes; ++i) (i < 40 ? d.train : i < 60 ? d.val : d.test).push_back(i);
  return d;
}

NodeModelSpec gat_spec(int epochs) {
  const Json model = {{"layers", Json::array({{{"type", "gat"}, {"heads", 2}, {"out_channels", 4}, {"dropout", 0.3},
                                               {"input_dropout", 0.4}},
                                              {{"type", "gat"}, {"heads", 1}, {"concat", false}, {"input_dropout", 0.4}}})},
                      {"activation", "elu"}, {"optimizer", {{"type", "adam"}, {"lr", 0.01}}},
                      {"epochs", epochs}, {"patience", 0}, {"normalize_features", true}};
  return NodeModelSpec::from_json(model, "test");
}

std::vector<float> values_of(const Tensor& t) { return {t.data(), t.data() + t.numel()}; }

void check_close(const std::vector<float>& a, const std::vector<float>& b, double tolerance) {
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(a[i] == Approx(b[i]).margin(tolerance));
}

}  // namespace

TEST_CASE("prepare_node_data holds features with at least kDenseFeatureShare non-zeros dense, sparser ones in CSR",
          "[graph]") {
  for (const double share : {0.05, 0.15, 0.4, 1.0}) {
    NodeDataset d = featured_dataset(200, 400, 30, 2, false, 5);
    d.features = features_with_share(200, 30, share, 6);
    const double measured = static_cast<double>(d.features.nnz()) / (200.0 * 30.0);
    const PreparedNodeData data = prepare_node_data(d, true);
    CHECK(data.features.is_sparse() == (measured < kDenseFeatureShare));
    SparseMatrix normalized = d.features;
    normalized.normalize_rows();
    CHECK(values_of(to_dense(data.features)) == values_of(normalized.to_dense()));
    // held once: the dataset keeps the features' shape, not a second copy of their values
    CHECK(data.dataset.num_features() == 30);
    CHECK(data.dataset.features.rows() == 200);
    CHECK(data.dataset.features.nnz() == 0);
  }
  NodeDataset featureless = featured_dataset(20, 30, 1, 2, false, 7);
  featureless.features = SparseMatrix();
  CHECK(prepare_node_data(featureless, false).features.is_sparse());  // the sparse identity
}

TEST_CASE("dense features train, predict, sample and explain as their CSR form does, up to rounding", "[graph]") {
  testing::ScopedThreads threads(1);
  const auto registry = graph_registry();
  const PreparedNodeData dense = prepare_node_data(dense_feature_dataset(), true);
  REQUIRE_FALSE(dense.features.is_sparse());
  const PreparedNodeData csr = in_csr_form(dense);

  SECTION("full-batch training with input dropout: the same losses and accuracies") {
    NodeRunOptions o;
    o.seed = 3;
    const NodeRunResult a = train_node_classifier(dense, gat_spec(8), *registry, o);
    const NodeRunResult b = train_node_classifier(csr, gat_spec(8), *registry, o);
    REQUIRE(a.history.size() == b.history.size());
    for (std::size_t e = 0; e < a.history.size(); ++e) {
      CHECK(a.history[e].train_loss == Approx(b.history[e].train_loss).epsilon(1e-4));
      CHECK(a.history[e].val_loss == Approx(b.history[e].val_loss).epsilon(1e-4));
    }
    CHECK(a.test_acc == b.test_acc);
    CHECK(a.history.front().train_loss != a.history.back().train_loss);  // it trained
  }

  SECTION("sampled mini-batch training and sampled inference") {
    NodeRunOptions o;
    o.seed = 4;
    MiniBatchOptions m;
    m.sampler.fanouts = {3, 3};
    m.batch_size = 16;
    o.minibatch = m;
    o.inference.mode = InferenceMode::kSampled;
    o.inference.sampler.fanouts = {3, 3};
    const NodeRunResult a = train_node_classifier(dense, gat_spec(3), *registry, o);
    const NodeRunResult b = train_node_classifier(csr, gat_spec(3), *registry, o);
    REQUIRE(a.history.size() == b.history.size());
    for (std::size_t e = 0; e < a.history.size(); ++e) {
      CHECK(a.history[e].train_loss == Approx(b.history[e].train_loss).epsilon(1e-4));
      CHECK(a.history[e].val_loss == Approx(b.history[e].val_loss).epsilon(1e-4));
    }
    CHECK(a.batches == b.batches);
  }

  SECTION("prediction and explanations of one model") {
    NodeClassifier model(two_layer_model("gat", dense), *registry);
    const Tensor logits_dense = predict_logits(model, dense);
    const Tensor logits_csr = predict_logits(model, csr);
    check_close(values_of(logits_dense), values_of(logits_csr), 1e-5);
    for (ExplainMethod method : {ExplainMethod::kSaliency, ExplainMethod::kIntegratedGradients,
                                 ExplainMethod::kGnnExplainer}) {
      ExplainOptions e;
      e.method = method;
      e.steps = 8;
      const NodeExplanation a = explain_node(model, dense, 70, e);
      const NodeExplanation b = explain_node(model, csr, 70, e);
      CHECK(a.edge_id == b.edge_id);
      check_close(a.edge_score, b.edge_score, 1e-4);
      check_close(a.feature_score, b.feature_score, 1e-4);
      CHECK_FALSE(a.feature_score.empty());
    }
  }
}
