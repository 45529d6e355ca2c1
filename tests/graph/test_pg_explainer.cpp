// PGExplainer (graph/explain/pg_explainer.hpp): the mask MLP, the concrete sample and the
// penalty against finite differences, the embeddings against the model's head, the masked
// forward at mask 1 against the model, a graph whose prediction depends on one edge, and
// determinism over seeds and threads.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "attend/core/error.hpp"
#include "attend/core/ops/softmax.hpp"
#include "attend/graph/explain/computation_graph.hpp"
#include "attend/graph/explain/explained_quantity.hpp"
#include "attend/graph/explain/explanation_file.hpp"
#include "attend/graph/explain/faithfulness.hpp"
#include "attend/graph/explain/node_explanation.hpp"
#include "attend/graph/explain/pg_explainer.hpp"
#include "attend/graph/explain/target_forward.hpp"
#include "explain_models.hpp"
#include "scoped_threads.hpp"

using namespace attend;
using namespace attend::graph;
using attend::testing::check_gradients;
using attend::testing::featured_dataset;
using attend::testing::graph_registry;
using attend::testing::one_signal_model;
using attend::testing::random_tensor;
using attend::testing::ScopedThreads;
using attend::testing::TinyNodeModel;

TEST_CASE("PGExplainer's mask MLP, concrete sample and penalty: gradients by finite differences", "[explain][grad]") {
  const int64_t k = 5, d = 3, h = 4;
  auto mlp = check_gradients(
      [](const std::vector<Var>& v) { return edge_mask_mlp(v[0], v[1], v[2], v[3], v[4]); },
      {random_tensor({k, 3 * d}, 1, -1.0f, 1.0f), random_tensor({3 * d, h}, 2, -1.0f, 1.0f),
       random_tensor({h}, 3, -0.5f, 0.5f), random_tensor({h, 1}, 4, -1.0f, 1.0f), random_tensor({1}, 5, -0.5f, 0.5f)});
  INFO(mlp.report);
  CHECK(mlp.ok);
  const Tensor noise = random_tensor({k}, 6, -2.0f, 2.0f);
  auto sample = check_gradients([&](const std::vector<Var>& v) { return concrete_sample(v[0], noise, 2.5); },
                                {random_tensor({k}, 7, -2.0f, 2.0f)});
  INFO(sample.report);
  CHECK(sample.ok);
  auto penalty = check_gradients([](const std::vector<Var>& v) { return mask_size_entropy(v[0], 0.05, 1.0, 1e-15); },
                                 {random_tensor({k}, 8, 0.1f, 0.9f)});
  INFO(penalty.report);
  CHECK(penalty.ok);
  // The authors' margin: the entropy of 0.98 m + 0.01, also near the ends.
  auto margin = check_gradients([](const std::vector<Var>& v) { return mask_size_entropy(v[0], 0.05, 1.0, 1e-15, 0.01); },
                                {random_tensor({k}, 9, 0.02f, 0.98f)});
  INFO(margin.report);
  CHECK(margin.ok);

  // Values by hand.
  const Tensor m({3}, std::vector<float>{0.2f, 0.5f, 0.9f});
  double sum = 0.0, entropy = 0.0;
  for (int64_t i = 0; i < 3; ++i) {
    sum += m[i];
    entropy += -m[i] * std::log(double(m[i])) - (1 - m[i]) * std::log(1 - double(m[i]));
  }
  CHECK(mask_size_entropy(Var(m), 0.05, 1.0, 1e-15).value().item() == Approx(0.05 * sum + entropy / 3).epsilon(1e-6));
  CHECK(mask_size_entropy(Var(Tensor({0})), 0.05, 1.0, 1e-15).value().item() == 0.0f);
  double squeezed = 0.0;
  for (int64_t i = 0; i < 3; ++i) {
    const double v = 0.98 * m[i] + 0.01;
    squeezed += -v * std::log(v) - (1 - v) * std::log(1 - v);
  }
  CHECK(mask_size_entropy(Var(m), 0.05, 1.0, 1e-15, 0.01).value().item() ==
        Approx(0.05 * sum + squeezed / 3).epsilon(1e-6));
  const Tensor ends({2}, std::vector<float>{0.0f, 1.0f});  // entropy 0 without the margin, H(0.01) with it
  CHECK(mask_size_entropy(Var(ends), 0.0, 1.0, 1e-15, 0.01).value().item() ==
        Approx(-0.01 * std::log(0.01) - 0.99 * std::log(0.99)).epsilon(1e-5));
  const Tensor logits({2}, std::vector<float>{0.3f, -1.0f}), log_odds({2}, std::vector<float>{0.5f, 0.25f});
  const Tensor s = concrete_sample(Var(logits), log_odds, 2.0).value();
  CHECK(s[0] == Approx(1.0 / (1.0 + std::exp(-(0.8 / 2.0)))));
  CHECK(s[1] == Approx(1.0 / (1.0 + std::exp(-(-0.75 / 2.0)))));
}

namespace {

Json layer(const std::string& type, Json config) { return {{"type", type}, {"config", std::move(config)}}; }

/// A gat (2 heads of 3) and a gcn (4) layer, their outputs concatenated into a node_linear head.
Json jumping_model(int64_t in, int64_t classes) {
  return {{"layers",
           {layer("gat", {{"in_channels", in}, {"out_channels", 3}, {"heads", 2}, {"seed", 3}}),
            layer("gcn", {{"in_channels", 6}, {"out_channels", 4}, {"seed", 4}}),
            layer("node_linear", {{"in_channels", 10}, {"out_channels", classes}, {"seed", 5}})}},
          {"activation", "relu"},
          {"jumping_knowledge", "cat"}};
}

}  // namespace

TEST_CASE("PGExplainer's embeddings are the head's input and its masked forward at 1 is the model's", "[explain]") {
  std::vector<std::unique_ptr<TinyNodeModel>> subjects;
  for (const std::string layer : {"gat", "gcn"}) subjects.push_back(std::make_unique<TinyNodeModel>(layer, 60, 180, 5, 3, 21));
  subjects.push_back(
      std::make_unique<TinyNodeModel>(jumping_model(5, 3), prepare_node_data(featured_dataset(60, 180, 5, 3, false, 21), true)));
  for (const auto& subject : subjects) {
    const NodeClassifier& model = subject->model;
    const PreparedNodeData& data = subject->data;
    const Tensor logits = model.forward(data.features, data.graph, 0).value();  // [N, C]
    const Tensor z = explainer_embeddings(model, data);                         // [N, D]
    REQUIRE(z.dim(0) == data.dataset.num_nodes);
    const std::size_t head = model.layers().size() - 1;
    const Tensor from_z = model.layer_forward(head, NodeFeatures(Var(z)), data.graph, 0).value();
    REQUIRE(from_z.shape() == logits.shape());
    for (int64_t i = 0; i < logits.numel(); ++i) REQUIRE(from_z[i] == Approx(logits[i]).margin(1e-5));

    const Tensor log_p = ops::log_softmax(Var(logits)).value();  // [N, C]
    const int64_t c = data.dataset.num_classes;
    for (int64_t v : {0, 17, 42}) {
      const ComputationGraph cg = computation_graph(data, v, model.message_passing_hops());
      const TargetForward pass(model, cg, 1);
      const Tensor ones({pass.num_edges()}, 1.0f);
      for (int64_t k = 0; k < c; ++k) {
        const float masked = target_log_probability(model, pass, pass.features(), Var(ones), k).value().item();
        CHECK(masked == Approx(log_p[v * c + k]).margin(1e-5));
      }
    }
  }
}

namespace {

/// A star, undirected: node 0 (the target) has neighbours 1 to 4. Node 1 has feature 0 only,
/// every other node feature 1 only.
PreparedNodeData one_neighbour_graph() {
  NodeDataset d;
  d.num_nodes = 5;
  d.edge_src = {1, 2, 3, 4};
  d.edge_dst = {0, 0, 0, 0};
  d.labels.assign(5, 0);
  d.num_classes = 2;
  d.features = SparseMatrix::from_triplets(5, 2, {0, 1, 2, 3, 4}, {1, 0, 1, 1, 1}, {1, 1, 1, 1, 1});
  return prepare_node_data(std::move(d), false);
}

}  // namespace

TEST_CASE("PGExplainer ranks first the one edge that carries the prediction", "[explain]") {
  const auto registry = graph_registry();
  const PreparedNodeData data = one_neighbour_graph();
  auto model = one_signal_model(*registry);
  REQUIRE(predicted_class(*model, data, 0) == 1);
  PgExplainerOptions options;
  options.epochs = 200;
  options.lr = 0.01;
  options.training_nodes = PgTrainingNodes::kExplained;
  PgExplainer explainer(*model, data, options);
  explainer.train(pg_training_nodes(data, {0}, options));
  ExplainOptions explain;
  explain.method = ExplainMethod::kPgExplainer;
  explain.pg_explainer = &explainer;
  const NodeExplanation e = explain_node(*model, data, 0, explain);
  REQUIRE(!e.edge_score.empty());
  CHECK(e.feature_score.empty());
  const auto best = std::max_element(e.edge_score.begin(), e.edge_score.end()) - e.edge_score.begin();
  std::string scores;
  for (std::size_t k = 0; k < e.edge_id.size(); ++k) {
    scores += std::to_string(e.edge_src[k]) + " -> " + std::to_string(e.edge_dst[k]) + ": " + std::to_string(e.edge_score[k]) + "\n";
  }
  INFO(scores);
  CHECK(e.edge_src[best] == 1);
  CHECK(e.edge_dst[best] == 0);
  for (std::size_t k = 0; k < e.edge_id.size(); ++k) {
    if (e.edge_dst[k] == 0 && e.edge_src[k] != 1) CHECK(e.edge_score[k] < e.edge_score[best] - 0.1f);
  }
  // Without a trained explainer the method is refused.
  explain.pg_explainer = nullptr;
  CHECK_THROWS_AS(explain_node(*model, data, 0, explain), Error);
}

namespace {

/// Every edge score of a PGExplainer trained with `options` on `training`, for each node of `explained`.
std::vector<Tensor> pg_scores(const NodeClassifier& model, const PreparedNodeData& data, const PgExplainerOptions& options,
                              const std::vector<int64_t>& training, const std::vector<int64_t>& explained) {
  PgExplainer explainer(model, data, options);
  explainer.train(training);
  std::vector<Tensor> scores;
  for (int64_t v : explained) scores.push_back(explainer.edge_scores(computation_graph(data, v, model.message_passing_hops())));
  return scores;
}

/// pg_scores on `threads` threads.
std::vector<Tensor> pg_scores_on_threads(int threads, const NodeClassifier& model, const PreparedNodeData& data,
                                         const PgExplainerOptions& options, const std::vector<int64_t>& training,
                                         const std::vector<int64_t>& explained) {
  ScopedThreads scoped(threads);
  return pg_scores(model, data, options, training, explained);
}

/// The three-epoch options the tests below vary one at a time.
PgExplainerOptions three_epoch_options() {
  PgExplainerOptions options;
  options.epochs = 3;
  options.lr = 0.01;
  options.seed = 4;
  return options;
}

bool same_scores(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  for (std::size_t t = 0; t < a.size(); ++t) {
    if (a[t].numel() != b[t].numel() || !std::equal(a[t].data(), a[t].data() + a[t].numel(), b[t].data())) return false;
  }
  return a.size() == b.size();
}

/// A gcn TinyNodeModel with the three-epoch options, five training nodes and three explained.
struct GcnSubject {
  TinyNodeModel subject{"gcn", 200, 600, 8, 3, 52};
  PreparedNodeData& data = subject.data;
  NodeClassifier& model = subject.model;
  const PgExplainerOptions base = three_epoch_options();
  const std::vector<int64_t> training{3, 50, 77, 120, 199}, explained{50, 120, 199};
};

}  // namespace

TEST_CASE("PGExplainer is deterministic for a seed and equal on 1 and 2 threads", "[explain]") {
  TinyNodeModel subject("gat", 200, 600, 8, 3, 52);
  PreparedNodeData& data = subject.data;
  NodeClassifier& model = subject.model;
  for (int64_t v = 0; v < 40; ++v) data.dataset.train.push_back(v);
  PgExplainerOptions options;
  options.epochs = 3;
  options.seed = 9;
  const std::vector<int64_t> explained{50, 120, 199};
  auto run = [&](int threads, uint64_t seed) {
    ScopedThreads scoped(threads);
    PgExplainerOptions o = options;
    o.seed = seed;
    return pg_scores(model, data, o, pg_training_nodes(data, explained, o), explained);
  };
  const auto one = run(1, 9), two = run(2, 9), again = run(1, 9), other = run(1, 10);
  CHECK(same_scores(one, two));
  CHECK(same_scores(one, again));
  CHECK_FALSE(same_scores(one, other));
  // The model's parameters got no gradient and still require one.
  for (const auto& [name, p] : model.named_parameters()) {
    CAPTURE(name);
    CHECK(p.requires_grad());
    CHECK_FALSE(p.has_grad());
  }
  // Training nodes: the split, or the explained nodes; no split refuses.
  CHECK(pg_training_nodes(data, explained, options) == data.dataset.train);
  options.training_nodes = PgTrainingNodes::kExplained;
  CHECK(pg_training_nodes(data, explained, options) == explained);
  options.training_nodes = PgTrainingNodes::kTrainSplit;
  data.dataset.train.clear();
  CHECK_THROWS_AS(pg_training_nodes(data, explained, options), InputError);
}

TEST_CASE_METHOD(GcnSubject, "PGExplainer's authors' choices: per-epoch steps, clipping, true labels, subgraph edges",
                 "[explain]") {

  SECTION("one step per epoch: the same as per node for one training node, not for several") {
    PgExplainerOptions epoch = base;
    epoch.update = PgUpdate::kPerEpoch;
    CHECK(same_scores(pg_scores(model, data, base, {50}, explained), pg_scores(model, data, epoch, {50}, explained)));
    CHECK_FALSE(same_scores(pg_scores(model, data, base, training, explained),
                            pg_scores(model, data, epoch, training, explained)));
  }
  SECTION("gradient clipping: none at a bound no entry reaches, a change at a small one") {
    PgExplainerOptions loose = base, tight = base;
    loose.gradient_clip = 1e30;
    tight.gradient_clip = 1e-4;
    const auto plain = pg_scores(model, data, base, training, explained);
    CHECK(same_scores(plain, pg_scores(model, data, loose, training, explained)));
    CHECK_FALSE(same_scores(plain, pg_scores(model, data, tight, training, explained)));
  }
  SECTION("true labels: the same as the prediction where they agree, not where they differ") {
    PgExplainerOptions truth = base;
    truth.training_label = PgTrainingLabel::kTrue;
    for (int64_t v : training) data.dataset.labels[v] = predicted_class(model, data, v);
    CHECK(same_scores(pg_scores(model, data, base, training, explained), pg_scores(model, data, truth, training, explained)));
    for (int64_t v : training) data.dataset.labels[v] = (data.dataset.labels[v] + 1) % data.dataset.num_classes;
    CHECK_FALSE(same_scores(pg_scores(model, data, base, training, explained),
                            pg_scores(model, data, truth, training, explained)));
  }
  SECTION("subgraph: every edge of the computation graph's subgraph but self-loops, in the explanation too") {
    PgExplainerOptions sub = base;
    sub.scored_edges = PgScoredEdges::kSubgraph;
    PgExplainer explainer(model, data, sub);
    explainer.train(training);
    ExplainOptions explain;
    explain.method = ExplainMethod::kPgExplainer;
    explain.pg_explainer = &explainer;
    bool more = false;
    for (int64_t v : explained) {
      const ComputationGraph cg = computation_graph(data, v, model.message_passing_hops());
      const std::vector<int64_t> scored = explainer.scored_edges(cg);
      const GraphView& plain = cg.data.graph.plain();
      int64_t loops = 0;
      for (int64_t e = 0; e < plain.num_edges(); ++e) loops += plain.src[e] == plain.dst[e];
      CHECK(static_cast<int64_t>(scored.size()) == plain.num_edges() - loops);
      CHECK(std::includes(scored.begin(), scored.end(), cg.explained.begin(), cg.explained.end()));
      more = more || scored.size() > cg.explained.size();
      const NodeExplanation x = explain_node(model, data, v, explain);
      CHECK(x.edge_id.size() == scored.size());
      CHECK(std::is_sorted(x.edge_id.begin(), x.edge_id.end()));
      const Tensor scores = explainer.edge_scores(cg);
      for (int64_t e : scored) CHECK(scores[e] > 0.0f);  // softplus of any logit
    }
    CHECK(more);  // the graph has edges out to the nodes L hops away
  }
  SECTION("symmetric mask: the same as the plain mask where no edge has its reverse scored, not where they do") {
    PgExplainerOptions sym = base;
    sym.symmetric_mask = true;
    auto largest_change = [&](const NodeClassifier& m) {  // the largest relative change of a score
      const auto plain = pg_scores(m, data, base, training, explained), symmetric = pg_scores(m, data, sym, training, explained);
      REQUIRE(plain.size() == symmetric.size());
      double largest = 0.0;
      for (std::size_t t = 0; t < plain.size(); ++t) {
        REQUIRE(plain[t].numel() == symmetric[t].numel());
        for (int64_t k = 0; k < plain[t].numel(); ++k) {
          largest = std::max(largest, std::abs(double(symmetric[t][k]) - plain[t][k]) / (std::abs(double(plain[t][k])) + 1e-12));
        }
      }
      return largest;
    };
    // Two layers: an explained edge between two nodes within one hop has its reverse explained
    // too. Three epochs at lr 0.01 on normalised features (rows summing to 1, so small
    // embeddings into the mask MLP) move the scores by about 6e-4 (above 1e-2 on raw features).
    CHECK(largest_change(model) > 1e-4);
    // A model of one message-passing layer: its explained edges all end at the target, so no
    // edge's reverse is among them, and the symmetric mask is the plain one up to the order in
    // which a sample's gradient adds its two halves (about 5e-7).
    const Json gcn = {{"type", "gcn"},
                      {"config", {{"in_channels", data.features.cols()}, {"out_channels", data.dataset.num_classes},
                                  {"seed", 11}}}};
    NodeClassifier one_hop(Json{{"layers", Json::array({gcn})}}, *subject.registry);
    one_hop.eval();
    REQUIRE(one_hop.message_passing_hops() == 1);
    CHECK(largest_change(one_hop) < 1e-5);
  }
  SECTION("khop: also the edges joining two nodes L hops away, which faithfulness leaves as they are") {
    PgExplainerOptions khop = base;
    khop.scored_edges = PgScoredEdges::kKhop;
    PgExplainer explainer(model, data, khop);
    explainer.train(training);
    ExplainOptions explain;
    explain.method = ExplainMethod::kPgExplainer;
    explain.pg_explainer = &explainer;
    ExplanationSet set;
    set.method = "pgexplainer";
    std::size_t outer_count = 0;
    for (int64_t v : explained) {
      const ComputationGraph cg = computation_graph(data, v, model.message_passing_hops());
      const auto [outer, outer_score] = explainer.outer_edge_scores(cg);
      outer_count += outer.size();
      REQUIRE(outer_score.size() == outer.size());
      const GraphView& plain = data.graph.plain();
      for (int64_t e : outer) {
        CAPTURE(e);
        CHECK(std::find(cg.plain_edge.begin(), cg.plain_edge.end(), e) == cg.plain_edge.end());
        for (int64_t end : {plain.src[e], plain.dst[e]}) {
          const auto at = std::lower_bound(cg.nodes.begin(), cg.nodes.end(), end);
          REQUIRE(at != cg.nodes.end());
          REQUIRE(*at == end);
          CHECK(cg.distance[at - cg.nodes.begin()] == cg.hops);
        }
      }
      NodeExplanation x = explain_node(model, data, v, explain);
      CHECK(x.edge_id.size() == explainer.scored_edges(cg).size() + outer.size());
      CHECK(std::is_sorted(x.edge_id.begin(), x.edge_id.end()));
      set.explanations.push_back(std::move(x));
    }
    CHECK(outer_count > 0);
    CHECK_NOTHROW(evaluate_faithfulness(model, data, set, 3));
  }
  SECTION("1 and 2 threads give the same bits with every choice on") {
    PgExplainerOptions all = base;
    all.update = PgUpdate::kPerEpoch;
    all.gradient_clip = 2.0;
    all.training_label = PgTrainingLabel::kTrue;
    all.restarts = 2;
    all.initial_mask = 0.9;
    all.symmetric_mask = true;
    for (PgScoredEdges edges : {PgScoredEdges::kSubgraph, PgScoredEdges::kKhop}) {
      all.scored_edges = edges;
      CHECK(same_scores(pg_scores_on_threads(1, model, data, all, training, explained),
                        pg_scores_on_threads(2, model, data, all, training, explained)));
    }
  }
  SECTION("bad values are refused with the option's name") {
    const OptionList<PgExplainerOptions>& list = PgExplainerOptions::option_list();
    for (const Json& bad : {Json{{"update", "batch"}}, Json{{"training_label", "gold"}}, Json{{"scored_edges", "all"}},
                            Json{{"gradient_clip", -1.0}}, Json{{"sample_bias", 0.6}}, Json{{"restarts", 0}},
                            Json{{"initial_mask", 0.0}}, Json{{"initial_mask", 1.0}}, Json{{"initial_mask", 1.5}},
                            Json{{"entropy_margin", 0.5}}, Json{{"entropy_margin", -0.01}},
                            Json{{"restart_combine", "median"}}}) {
      CAPTURE(bad.dump());
      try {
        list.check(list.from_json(bad));
        FAIL("accepted");
      } catch (const InputError& e) {
        CHECK(std::string(e.what()).find(bad.begin().key()) != std::string::npos);
      }
    }
    PgExplainerOptions negative = base;
    negative.gradient_clip = -0.5;
    CHECK_THROWS_AS(PgExplainer(model, data, negative), InputError);
  }
}

TEST_CASE_METHOD(GcnSubject, "PGExplainer's restarts keep the lowest objective, and its initial mask is the output bias",
                 "[explain]") {

  SECTION("restarts: the kept MLP is the single run of the lower objective, seed or seed + 1") {
    std::vector<std::vector<Tensor>> scores;
    std::vector<double> objectives;
    for (uint64_t seed : {base.seed, base.seed + 1}) {
      PgExplainerOptions one = base;
      one.seed = seed;
      PgExplainer explainer(model, data, one);
      explainer.train(training);
      objectives.push_back(explainer.objective());
      scores.push_back(pg_scores(model, data, one, training, explained));
    }
    REQUIRE(std::isfinite(objectives[0]));
    REQUIRE(objectives[0] != objectives[1]);
    CHECK_FALSE(same_scores(scores[0], scores[1]));
    PgExplainerOptions two = base;
    two.restarts = 2;
    PgExplainer explainer(model, data, two);
    int epochs_seen = 0;
    explainer.train(training, [&](int epoch, double) { epochs_seen = epoch; });
    CHECK(epochs_seen == 2 * base.epochs);
    const std::size_t lower = objectives[1] < objectives[0] ? 1 : 0;
    CHECK(explainer.objective() == objectives[lower]);
    CHECK(same_scores(pg_scores(model, data, two, training, explained), scores[lower]));
    // The objective is the mean noise-free loss: the same for an explainer trained again.
    PgExplainer again(model, data, two);
    again.train(training);
    CHECK(again.objective() == explainer.objective());
  }
  SECTION("initial mask m0: the untrained logits move by t0 log(m0 / (1 - m0)), 0.5 changes nothing") {
    PgExplainerOptions high = base, half = base;
    high.initial_mask = 0.9;
    half.initial_mask = 0.5;
    const PgExplainer plain(model, data, base), shifted(model, data, high), same(model, data, half);
    const ComputationGraph cg = computation_graph(data, 50, model.message_passing_hops());
    const Tensor a = plain.edge_logits(cg, cg.explained).value(), b = shifted.edge_logits(cg, cg.explained).value(),
                 c = same.edge_logits(cg, cg.explained).value();
    REQUIRE(a.numel() > 0);
    const double bias = base.temperature_start * std::log(0.9 / 0.1);
    for (int64_t k = 0; k < a.numel(); ++k) {
      CHECK(b[k] - a[k] == Approx(bias).epsilon(1e-5));
      CHECK(c[k] == a[k]);
    }
  }
}

TEST_CASE_METHOD(GcnSubject, "PGExplainer's restarts averaged: the mean of the single runs' masks", "[explain]") {
  PgExplainerOptions mean = base;
  mean.restart_combine = PgRestartCombine::kMean;

  SECTION("three restarts: -log(1 - the mean mask) of the single runs of seeds seed .. seed + 2") {
    const int restarts = 3;
    // one short epoch: the runs stay near their own random MLPs
    PgExplainerOptions apart_runs = base;
    apart_runs.epochs = 1;
    apart_runs.lr = 1e-4;
    mean = apart_runs;
    mean.restart_combine = PgRestartCombine::kMean;
    std::vector<std::vector<Tensor>> single;  // [R] runs of [explained] scores
    double objective_sum = 0.0;
    for (int r = 0; r < restarts; ++r) {
      PgExplainerOptions one = apart_runs;
      one.seed = base.seed + static_cast<uint64_t>(r);
      PgExplainer explainer(model, data, one);
      explainer.train(training);
      objective_sum += explainer.objective();
      single.push_back(pg_scores(model, data, one, training, explained));
    }
    mean.restarts = restarts;
    PgExplainer explainer(model, data, mean);
    explainer.train(training);
    CHECK(explainer.objective() == Approx(objective_sum / restarts).epsilon(1e-12));
    const std::vector<Tensor> combined = pg_scores(model, data, mean, training, explained);
    REQUIRE(combined.size() == explained.size());
    // edges scored; edges where the mean mask's score and the mean score differ by 1e-4 or more, over
    // ten times the tolerance below (the single runs' scores here differ by about 0.06)
    int64_t scored = 0, apart = 0;
    for (std::size_t t = 0; t < explained.size(); ++t) {
      for (int64_t e = 0; e < combined[t].numel(); ++e) {
        // score s_r = -log(1 - m_r): 1 - m = mean_r exp(-s_r)
        double kept = 0.0, mean_score = 0.0, low = single[0][t][e], high = low;
        for (int r = 0; r < restarts; ++r) {
          kept += std::exp(-static_cast<double>(single[r][t][e])) / restarts;
          mean_score += single[r][t][e] / static_cast<double>(restarts);
          low = std::min<double>(low, single[r][t][e]);
          high = std::max<double>(high, single[r][t][e]);
        }
        CAPTURE(t, e, low, high);
        CHECK(combined[t][e] == Approx(-std::log(kept)).epsilon(1e-6).margin(1e-6));
        CHECK(combined[t][e] >= low - 1e-5);  // a mean lies between the runs
        CHECK(combined[t][e] <= high + 1e-5);
        scored += single[0][t][e] > 0.0f;
        apart += std::abs(mean_score + std::log(kept)) >= 1e-4;
      }
    }
    CHECK(scored > 0);
    CHECK(apart > 0);  // the runs differ enough that the mean of the scores would fail the check above
    for (const auto& one : single) CHECK_FALSE(same_scores(combined, one));
  }
  SECTION("masks near 0 keep their ranking: -log1p(-m) of the mean mask, not 0") {
    // untrained MLPs started at masks of 6e-6 (logits near t0 log(6e-6) = -60): masks near 1e-26,
    // far below 1 - m's precision in double, inside float's range
    PgExplainerOptions collapse = base;
    collapse.initial_mask = 6e-6;
    collapse.epochs = 1;
    collapse.lr = 1e-4;
    std::vector<std::vector<Tensor>> single;  // [R] runs of [explained] scores
    for (uint64_t r = 0; r < 2; ++r) {
      PgExplainerOptions one = collapse;
      one.seed = base.seed + r;
      single.push_back(pg_scores(model, data, one, training, explained));
    }
    collapse.restarts = 2;
    collapse.restart_combine = PgRestartCombine::kMean;
    const std::vector<Tensor> combined = pg_scores(model, data, collapse, training, explained);
    int64_t tiny = 0;
    for (std::size_t t = 0; t < explained.size(); ++t) {
      for (int64_t e = 0; e < combined[t].numel(); ++e) {
        if (single[0][t][e] == 0.0f) continue;
        // each score s_r = -log(1 - m_r) ~ m_r here, so the mean mask's score ~ the scores' mean
        const double expected = -std::log1p(std::expm1(-static_cast<double>(single[0][t][e])) / 2 +
                                             std::expm1(-static_cast<double>(single[1][t][e])) / 2);
        CAPTURE(t, e, single[0][t][e], single[1][t][e]);
        CHECK(combined[t][e] == Approx(expected).epsilon(1e-5).margin(0.0));
        tiny += single[0][t][e] < 1e-16f;
      }
    }
    CHECK(tiny > 0);
  }
  SECTION("one restart: the same bits as best") {
    CHECK(same_scores(pg_scores(model, data, mean, training, explained), pg_scores(model, data, base, training, explained)));
  }
  SECTION("1 and 2 threads give the same bits, with khop edges and the other choices on") {
    mean.restarts = 3;
    mean.initial_mask = 0.9;
    mean.edge_entropy = 0.0;
    mean.symmetric_mask = true;
    mean.scored_edges = PgScoredEdges::kKhop;
    CHECK(same_scores(pg_scores_on_threads(1, model, data, mean, training, explained),
                      pg_scores_on_threads(2, model, data, mean, training, explained)));
    // and the outer (khop) edges are the ensemble's too: equal on both thread counts
    PgExplainer a(model, data, mean), b(model, data, mean);
    {
      ScopedThreads scoped(1);
      a.train(training);
    }
    {
      ScopedThreads scoped(2);
      b.train(training);
    }
    const ComputationGraph cg = computation_graph(data, 50, model.message_passing_hops());
    CHECK(a.outer_edge_scores(cg) == b.outer_edge_scores(cg));
  }
  SECTION("the option list reads the names") {
    const OptionList<PgExplainerOptions>& list = PgExplainerOptions::option_list();
    CHECK(list.from_json(Json{{"restart_combine", "mean"}}).restart_combine == PgRestartCombine::kMean);
    CHECK(list.from_json(Json{{"restart_combine", "best"}}).restart_combine == PgRestartCombine::kBest);
    CHECK(list.to_json(mean)["restart_combine"] == "mean");
  }
}
