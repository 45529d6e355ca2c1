// graph::dataset_from_arrays: the dataset of attend.Graph (PyTorch Geometric's arrays).
#include <catch2/catch.hpp>

#include "attend/core/error.hpp"
#include "attend/graph/dataset_arrays.hpp"

using namespace attend;
using namespace attend::graph;

TEST_CASE("dataset_from_arrays infers nodes, classes and relations, and turns masks into ids", "[graph]") {
  DatasetArrays a;
  a.edge_src = {0, 1, 2};
  a.edge_dst = {1, 2, 5};
  a.edge_type = {0, 2, 1};
  a.directed = true;
  a.labels = std::vector<int64_t>{0, 3, -1, 1, 0, 2};
  a.train.mask = {1, 0, 0, 1, 0, 1};
  a.test.ids = {4};
  const NodeDataset d = dataset_from_arrays(a);
  CHECK(d.num_nodes == 6);
  CHECK(d.num_classes == 4);
  CHECK(d.train == std::vector<int64_t>{0, 3, 5});
  CHECK(d.test == std::vector<int64_t>{4});
  CHECK(d.relation_names == std::vector<std::string>{"0", "1", "2"});
  CHECK(d.num_features() == 0);

  DatasetArrays bare;  // no labels: N from the edges, every node unlabelled
  bare.edge_src = {0};
  bare.edge_dst = {3};
  const NodeDataset e = dataset_from_arrays(bare);
  CHECK(e.num_nodes == 4);
  CHECK(e.labels == std::vector<int64_t>(4, -1));
}

TEST_CASE("dataset_from_arrays names the array that disagrees", "[graph]") {
  const auto message = [](DatasetArrays a) {
    try {
      dataset_from_arrays(std::move(a));
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  DatasetArrays a;
  a.edge_src = {0};
  a.edge_dst = {1};
  a.features = SparseMatrix::from_dense(Tensor({3, 2}));
  a.num_nodes = 4;
  CHECK(message(a) == "x has 3 rows, the graph has 4 nodes");
  DatasetArrays b;
  b.edge_src = {0};
  b.edge_dst = {1};
  b.labels = std::vector<int64_t>{0, 1};
  b.train.mask = {1};
  CHECK(message(b) == "train as a mask must have one entry per node (2)");
  b.train.mask.clear();
  b.edge_type = {0, 1};
  CHECK(message(b) == "edge_type must have one entry per edge");
  b.edge_type.clear();
  b.edge_features = {1, 2, 3};
  b.edge_feature_dim = 2;
  CHECK(message(b) == "edge_attr must have one row per edge (1 rows), got 3 values of width 2");
  b.edge_features = {1, 2};
  const NodeDataset d = dataset_from_arrays(b);
  CHECK(d.edge_feature_dim == 2);
  CHECK(d.edge_features == std::vector<float>{1, 2});
}
