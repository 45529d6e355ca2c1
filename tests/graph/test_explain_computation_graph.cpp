#include <catch2/catch.hpp>

#include "attend/graph/explain/computation_graph.hpp"
#include "explain_models.hpp"

using namespace attend;
using namespace attend::graph;
using attend::testing::TinyNodeModel;

TEST_CASE("computation graph: the target's logits equal the full graph's (gat, gcn, rgcn)", "[explain]") {
  for (const std::string layer : {"gat", "gcn", "rgcn"}) {
    CAPTURE(layer);
    TinyNodeModel tiny(layer, 60, 90, 5, 3, 3);
    const Tensor all = predict_logits(tiny.model, tiny.data);  // [N, C]
    for (int64_t target : {0, 17, 42}) {
      const ComputationGraph cg = computation_graph(tiny.data, target, 2);
      REQUIRE(cg.nodes[cg.target] == target);
      REQUIRE(cg.num_nodes() < tiny.data.dataset.num_nodes);  // the test must cut something away
      const Tensor sub = predict_logits(tiny.model, cg.data);
      for (int64_t c = 0; c < all.dim(1); ++c) {
        CHECK(sub[cg.target * all.dim(1) + c] == Approx(all[target * all.dim(1) + c]).margin(1e-5));
      }
    }
  }
}

TEST_CASE("computation graph: explained edges are the plain edges into nodes within L - 1 hops", "[explain]") {
  // A path 0 - 1 - 2 - 3 - 4 - 5 and a spur 2 - 6: for target 0 and L = 2 the explained edges
  // end at 0 or 1 (1 -> 0, 0 -> 1, 2 -> 1); the nodes are those within 2 hops (0, 1, 2), and
  // node 2 keeps its full in-degree 3 as its normalisation degree.
  NodeDataset d;
  d.num_nodes = 7;
  d.edge_src = {0, 1, 2, 3, 4, 2};
  d.edge_dst = {1, 2, 3, 4, 5, 6};
  d.features = SparseMatrix::from_dense(Tensor({7, 1}, 1.0f));
  d.labels.assign(7, 0);
  d.num_classes = 1;
  const PreparedNodeData full = prepare_node_data(d, false);
  const ComputationGraph cg = computation_graph(full, 0, 2);
  CHECK(cg.nodes == std::vector<int64_t>{0, 1, 2});
  CHECK(cg.distance == std::vector<int32_t>{0, 1, 2});
  std::vector<std::pair<int64_t, int64_t>> explained;
  for (int64_t e : cg.explained) {
    const int64_t full_id = cg.plain_edge[e];
    CHECK(full.graph.plain().src[full_id] == cg.nodes[cg.data.graph.plain().src[e]]);
    CHECK(full.graph.plain().dst[full_id] == cg.nodes[cg.data.graph.plain().dst[e]]);
    explained.emplace_back(full.graph.plain().src[full_id], full.graph.plain().dst[full_id]);
  }
  std::sort(explained.begin(), explained.end());
  CHECK(explained == std::vector<std::pair<int64_t, int64_t>>{{0, 1}, {1, 0}, {2, 1}});
  CHECK(cg.data.graph.plain().csr.in_degree(2) == 1);
  CHECK(cg.data.graph.normalization_degree(2, false) == 3);
  CHECK(cg.data.graph.normalization_degree(2, true) == 4);
}

TEST_CASE("computation graph: a node_linear head adds no hop", "[explain]") {
  const TinyNodeModel two_gcn("gcn", 60, 90, 5, 3, 3);
  const PreparedNodeData& full = two_gcn.data;
  CHECK(two_gcn.model.message_passing_hops() == 2);
  Json config = two_gcn.model.config();
  config["layers"][1]["type"] = "node_linear";  // gcn, then a head that reads each node alone
  NodeClassifier model(config, *two_gcn.registry);
  CHECK(model.message_passing_hops() == 1);
  // One hop: the explained edges are the target's in-edges, and its logits are the full graph's.
  const Tensor all = predict_logits(model, full);  // [N, C]
  const ComputationGraph cg = computation_graph(full, 17, model.message_passing_hops());
  for (int64_t e : cg.explained) CHECK(cg.data.graph.plain().dst[e] == cg.target);
  std::size_t in_edges = 0;  // of node 17, self-loops aside
  for (int64_t e = 0; e < full.graph.plain().num_edges(); ++e) {
    in_edges += full.graph.plain().dst[e] == 17 && full.graph.plain().src[e] != 17 ? 1 : 0;
  }
  CHECK(cg.explained.size() == in_edges);
  CHECK(in_edges > 0);
  const Tensor sub = predict_logits(model, cg.data);
  for (int64_t c = 0; c < all.dim(1); ++c) CHECK(sub[cg.target * all.dim(1) + c] == Approx(all[17 * all.dim(1) + c]).margin(1e-5));
}

TEST_CASE("computation graph: the input features are the full graph's rows, held once", "[explain]") {
  for (const double density : {1.0, 0.1}) {  // dense and CSR features (input_features' choice)
    CAPTURE(density);
    NodeDataset d = attend::testing::featured_dataset(60, 90, 20, 3, false, 5);
    const Tensor dense = d.features.to_dense();  // [N, F]
    Tensor thinned = dense;
    for (int64_t i = 0; i < thinned.numel(); ++i) thinned[i] = i % 10 < density * 10 ? thinned[i] : 0.0f;
    d.features = SparseMatrix::from_dense(thinned);
    const PreparedNodeData full = prepare_node_data(d, false);
    REQUIRE(full.features.is_sparse() == (density < 0.25));
    const ComputationGraph cg = computation_graph(full, 17, 2);
    const Tensor x = to_dense(cg.data.features);  // [n, F]
    REQUIRE(x.shape() == (Shape{cg.num_nodes(), 20}));
    for (int64_t i = 0; i < cg.num_nodes(); ++i) {
      for (int64_t f = 0; f < 20; ++f) CHECK(x[i * 20 + f] == thinned[cg.nodes[i] * 20 + f]);
    }
    // The dataset keeps the shape only, as prepare_node_data leaves it.
    CHECK(cg.data.dataset.features.rows() == cg.num_nodes());
    CHECK(cg.data.dataset.features.cols() == 20);
    CHECK(cg.data.dataset.features.nnz() == 0);
  }
}
