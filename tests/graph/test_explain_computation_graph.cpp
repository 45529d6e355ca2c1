#include <catch2/catch.hpp>

#include "attend/graph/explain/computation_graph.hpp"
#include "explain_models.hpp"

using namespace attend;
using namespace attend::graph;
using attend::testing::featured_dataset;
using attend::testing::graph_registry;
using attend::testing::two_layer_model;

TEST_CASE("computation graph: the target's logits equal the full graph's (gat, gcn, rgcn)", "[explain]") {
  for (const std::string layer : {"gat", "gcn", "rgcn"}) {
    CAPTURE(layer);
    const PreparedNodeData full = prepare_node_data(featured_dataset(60, 90, 5, 3, layer == "rgcn", 3), true);
    auto registry = graph_registry();
    NodeClassifier model(two_layer_model(layer, full), *registry);
    const Tensor all = predict_logits(model, full);  // [N, C]
    for (int64_t target : {0, 17, 42}) {
      const ComputationGraph cg = computation_graph(full, target, 2);
      REQUIRE(cg.nodes[cg.target] == target);
      REQUIRE(cg.num_nodes() < full.dataset.num_nodes);  // the test must cut something away
      const Tensor sub = predict_logits(model, cg.data);
      for (int64_t c = 0; c < all.dim(1); ++c) {
        CHECK(sub[cg.target * all.dim(1) + c] == Approx(all[target * all.dim(1) + c]).margin(1e-5));
      }
    }
  }
}

TEST_CASE("computation graph: a node_linear head adds no hop (message_passing_depth)", "[explain]") {
  // Two gcn layers and a node_linear head over their concatenation: two hops, not three; the
  // two-hop computation graph still gives the full graph's logits.
  const PreparedNodeData full = prepare_node_data(featured_dataset(60, 90, 5, 3, false, 3), true);
  auto registry = graph_registry();
  const Json layers = Json::array({{{"type", "gcn"}, {"config", {{"in_channels", 5}, {"out_channels", 4}, {"seed", 1}}}},
                                   {{"type", "gcn"}, {"config", {{"in_channels", 4}, {"out_channels", 4}, {"seed", 2}}}},
                                   {{"type", "node_linear"}, {"config", {{"in_channels", 8}, {"out_channels", 3}, {"seed", 3}}}}});
  NodeClassifier model({{"layers", layers}, {"activation", "relu"}, {"jumping_knowledge", "cat"}}, *registry);
  CHECK(model.layers().size() == 3);
  REQUIRE(message_passing_depth(model) == 2);
  const Tensor all = predict_logits(model, full);  // [N, C]
  for (int64_t target : {0, 17, 42}) {
    const ComputationGraph cg = computation_graph(full, target, message_passing_depth(model));
    REQUIRE(cg.num_nodes() < computation_graph(full, target, 3).num_nodes());  // the test must cut something away
    const Tensor sub = predict_logits(model, cg.data);
    for (int64_t c = 0; c < all.dim(1); ++c) {
      CHECK(sub[cg.target * all.dim(1) + c] == Approx(all[target * all.dim(1) + c]).margin(1e-5));
    }
  }
}

TEST_CASE("computation graph: explained edges are the plain edges into nodes within L - 1 hops", "[explain]") {
  // A path 0 - 1 - 2 - 3 - 4 - 5 and a spur 2 - 6: for target 0 and L = 2 the explained edges
  // end at 0 or 1 (1 -> 0, 0 -> 1, 2 -> 1); nodes up to 3 hops (0, 1, 2, 3, 6) are kept so that
  // node 2 keeps its in-degree 3.
  NodeDataset d;
  d.num_nodes = 7;
  d.edge_src = {0, 1, 2, 3, 4, 2};
  d.edge_dst = {1, 2, 3, 4, 5, 6};
  d.features = SparseMatrix::from_dense(Tensor({7, 1}, 1.0f));
  d.labels.assign(7, 0);
  d.num_classes = 1;
  const PreparedNodeData full = prepare_node_data(d, false);
  const ComputationGraph cg = computation_graph(full, 0, 2);
  CHECK(cg.nodes == std::vector<int64_t>{0, 1, 2, 3, 6});
  CHECK(cg.distance == std::vector<int32_t>{0, 1, 2, 3, 3});
  std::vector<std::pair<int64_t, int64_t>> explained;
  for (int64_t e : cg.explained) {
    const int64_t full_id = cg.plain_edge[e];
    CHECK(full.graph.plain().src[full_id] == cg.nodes[cg.data.graph.plain().src[e]]);
    CHECK(full.graph.plain().dst[full_id] == cg.nodes[cg.data.graph.plain().dst[e]]);
    explained.emplace_back(full.graph.plain().src[full_id], full.graph.plain().dst[full_id]);
  }
  std::sort(explained.begin(), explained.end());
  CHECK(explained == std::vector<std::pair<int64_t, int64_t>>{{0, 1}, {1, 0}, {2, 1}});
  CHECK(cg.data.graph.plain().csr.in_degree(2) == 3);
}

TEST_CASE("computation graph: replicate numbers copy k's edge e as k E + e", "[explain]") {
  const PreparedNodeData full = prepare_node_data(featured_dataset(30, 40, 3, 2, true, 5), true);
  const ComputationGraph cg = computation_graph(full, 4, 2);
  const PreparedNodeData many = replicate(cg.data, 3);  // checks its own numbering
  CHECK(many.dataset.num_nodes == 3 * cg.num_nodes());
  CHECK(many.graph.plain().num_edges() == 3 * cg.data.graph.plain().num_edges());
  CHECK(many.graph.plain().relation[2 * cg.data.graph.plain().num_edges() + 1] == cg.data.graph.plain().relation[1]);
}
