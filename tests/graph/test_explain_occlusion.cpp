// Occlusion (graph/explain/occlusion.hpp) against plain references: the model re-run on the
// whole graph without the edge (a summing layer) or with the edge's mask entry 0 (every
// layer), and on the features with one column zeroed; batches and threads change no bit.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "attend/core/error.hpp"
#include "attend/core/ops/softmax.hpp"
#include "attend/graph/explain/computation_graph.hpp"
#include "attend/graph/explain/node_explanation.hpp"
#include "attend/graph/explain/occlusion.hpp"
#include "edge_direction_pairs.hpp"
#include "explain_models.hpp"
#include "scoped_threads.hpp"

using namespace attend;
using namespace attend::graph;
using attend::testing::check_directions_share_score;
using attend::testing::TinyNodeModel;

namespace {

/// log softmax(model(x, graph))[target, cls] on the whole graph: the plain reference's f.
double whole_graph_f(const NodeClassifier& model, const NodeFeatures& x, const GraphContext& graph, int64_t target,
                     int64_t cls) {
  NoGradGuard no_grad;
  const Tensor log_p = ops::log_softmax(model.forward(x, graph, 0)).value();  // [N, C]
  return log_p[target * log_p.dim(1) + cls];
}

/// The two-layer model of `layer` with every layer's `normalize` false (gcn's plain sum, the
/// benchmark presets' form).
Json summing(Json model) {
  for (Json& layer : model["layers"]) layer["config"]["normalize"] = false;
  return model;
}

constexpr int64_t kTarget = 7, kClass = 1;

}  // namespace

TEST_CASE("symmetric occlusion of an edge of a summing gcn equals re-running the model on the graph without it",
          "[explain]") {
  // An undirected dataset's stored edge is both plain directions (a directed one's is the edge
  // and its inverse relation), so the graph without the stored edges joining u and v is the
  // symmetric occlusion; one direction alone is checked against the mask below.
  const NodeDataset d = testing::featured_dataset(40, 70, 4, 3, false, 21);
  const PreparedNodeData data = prepare_node_data(d, true);
  TinyNodeModel tiny(summing(testing::two_layer_model("gcn", data)), data);
  const ComputationGraph cg = computation_graph(tiny.data, kTarget, 2);
  TargetForwards passes(tiny.model, cg);
  const std::vector<float> score = occlusion_edges(passes, kClass, cg.explained, true);
  REQUIRE(score.size() == cg.explained.size());
  const double full = whole_graph_f(tiny.model, tiny.data.features, tiny.data.graph, kTarget, kClass);
  const GraphView& plain = tiny.data.graph.plain();
  int moved = 0;
  for (std::size_t k = 0; k < cg.explained.size(); ++k) {
    const int64_t id = cg.plain_edge[cg.explained[k]];
    const int64_t u = plain.src[id], v = plain.dst[id];
    NodeDataset without = d;  // without every stored edge joining u and v
    without.edge_src.clear();
    without.edge_dst.clear();
    for (int64_t e = 0; e < d.num_edges(); ++e) {
      const int64_t s = d.edge_src[e], t = d.edge_dst[e];
      if ((s == u && t == v) || (s == v && t == u)) continue;
      without.edge_src.push_back(s);
      without.edge_dst.push_back(t);
    }
    REQUIRE(without.num_edges() < d.num_edges());
    const PreparedNodeData smaller = prepare_node_data(without, true);
    const double f = whole_graph_f(tiny.model, smaller.features, smaller.graph, kTarget, kClass);
    CAPTURE(k, u, v);
    CHECK(score[k] == Approx(full - f).margin(1e-6));
    moved += std::abs(full - f) > 1e-3;
  }
  CHECK(moved > 3);
}

TEST_CASE("occlusion of an edge equals the whole graph's forward with its mask entry 0 (gat, gcn, rgcn)", "[explain]") {
  for (const std::string layer : {"gat", "gcn", "rgcn"}) {
    for (const bool symmetric : {false, true}) {
      CAPTURE(layer, symmetric);
      TinyNodeModel tiny(layer, 40, 70, 4, 3, 22);
      const ComputationGraph cg = computation_graph(tiny.data, kTarget, 2);
      TargetForwards passes(tiny.model, cg);
      const std::vector<float> score = occlusion_edges(passes, kClass, cg.explained, symmetric);
      const GraphView& plain = tiny.data.graph.plain();
      const double full = whole_graph_f(tiny.model, tiny.data.features, tiny.data.graph, kTarget, kClass);
      int moved = 0;
      for (std::size_t k = 0; k < cg.explained.size(); ++k) {
        const int64_t id = cg.plain_edge[cg.explained[k]];
        Tensor mask({plain.num_edges()}, 1.0f);  // [E] of the whole graph
        for (int64_t e = 0; e < plain.num_edges(); ++e) {
          const bool forward = plain.src[e] == plain.src[id] && plain.dst[e] == plain.dst[id];
          const bool reverse = plain.src[e] == plain.dst[id] && plain.dst[e] == plain.src[id];
          const bool taken = symmetric ? (forward || reverse) && plain.relation[e] == plain.relation[id] : e == id;
          if (taken) mask[e] = 0.0f;
        }
        const double f = whole_graph_f(tiny.model, tiny.data.features, tiny.data.graph.with_edge_mask(Var(mask)),
                                       kTarget, kClass);
        CAPTURE(k);
        CHECK(score[k] == Approx(full - f).margin(1e-6));
        moved += std::abs(full - f) > 1e-3;
      }
      CHECK(moved > 3);
    }
  }
}

TEST_CASE("occlusion of a feature equals the whole graph's forward with that column zero (gat, gcn)", "[explain]") {
  for (const std::string layer : {"gat", "gcn"}) {
    CAPTURE(layer);
    TinyNodeModel tiny(layer, 40, 70, 5, 3, 23);
    const ComputationGraph cg = computation_graph(tiny.data, kTarget, 2);
    TargetForwards passes(tiny.model, cg);
    const std::vector<float> score = occlusion_features(passes, kClass);
    const Tensor x = to_dense(tiny.data.features);  // [N, F]
    REQUIRE(static_cast<int64_t>(score.size()) == x.dim(1));
    const double full = whole_graph_f(tiny.model, tiny.data.features, tiny.data.graph, kTarget, kClass);
    for (int64_t f = 0; f < x.dim(1); ++f) {
      Tensor without = x;
      for (int64_t v = 0; v < x.dim(0); ++v) without[v * x.dim(1) + f] = 0.0f;
      const double occluded = whole_graph_f(tiny.model, NodeFeatures(Var(without)), tiny.data.graph, kTarget, kClass);
      CAPTURE(f);
      CHECK(score[static_cast<std::size_t>(f)] == Approx(full - occluded).margin(1e-6));
      CHECK(std::abs(full - occluded) > 1e-4);
    }
  }
}

TEST_CASE("occlusion: one copy per pass, several, or all in one give the same scores", "[explain]") {
  TinyNodeModel tiny("gat", 40, 70, 4, 3, 24);
  const ComputationGraph cg = computation_graph(tiny.data, kTarget, 2);
  TargetForwards passes(tiny.model, cg);
  const int64_t per_copy = cg.num_nodes() + cg.data.graph.plain().num_edges();
  const std::vector<float> all = occlusion_edges(passes, kClass, cg.explained, false);
  for (const int64_t copies : {1, 3}) {
    CAPTURE(copies);
    const std::vector<float> batched = occlusion_edges(passes, kClass, cg.explained, false, copies * per_copy);
    REQUIRE(batched.size() == all.size());
    for (std::size_t k = 0; k < all.size(); ++k) CHECK(batched[k] == Approx(all[k]).margin(1e-6));
    const std::vector<float> features = occlusion_features(passes, kClass, copies * cg.num_nodes() * 4);
    const std::vector<float> one_pass = occlusion_features(passes, kClass);
    for (std::size_t f = 0; f < features.size(); ++f) CHECK(features[f] == Approx(one_pass[f]).margin(1e-6));
  }
}

TEST_CASE("occlusion: symmetric gives both directions of an edge one score", "[explain]") {
  TinyNodeModel tiny("gcn", 40, 70, 4, 3, 25);
  ExplainOptions o;
  o.method = ExplainMethod::kOcclusion;
  o.symmetric = true;
  const NodeExplanation x = explain_node(tiny.model, tiny.data, kTarget, o);
  CHECK(check_directions_share_score(x) > 2);
}

TEST_CASE("occlusion: an edge outside the computation graph is refused", "[explain]") {
  TinyNodeModel tiny("gcn", 30, 50, 3, 2, 26);
  const ComputationGraph cg = computation_graph(tiny.data, 0, 2);
  TargetForwards passes(tiny.model, cg);
  CHECK_THROWS_AS(occlusion_edges(passes, 0, {cg.data.graph.plain().num_edges()}, false), Error);
  CHECK_THROWS_AS(occlusion_edges(passes, 0, {-1}, true), Error);
  CHECK(explain_method_from_name("occlusion") == ExplainMethod::kOcclusion);
}
