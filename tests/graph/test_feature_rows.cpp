// Feature rows on demand: the dense layout of the graph file, rows read from it through the
// LRU cache equal to the rows in memory, and a graph opened without its feature values.
#include <catch2/catch.hpp>

#include <cstring>
#include <memory>
#include <filesystem>
#include <vector>

#include "attend/core/builtin_layers.hpp"
#include "attend/core/checkpoint.hpp"
#include "attend/core/error.hpp"
#include "attend/core/registry.hpp"
#include "attend/core/hdf5_file.hpp"
#include "attend/core/random.hpp"
#include "attend/graph/builtin_layers.hpp"
#include "attend/graph/feature_rows.hpp"
#include "attend/graph/graph_store.hpp"
#include "attend/graph/hdf5_feature_rows.hpp"
#include "attend/graph/neighbor_sampler.hpp"
#include "attend/graph/node_training.hpp"
#include "temp_dir.hpp"

using namespace attend;
using namespace attend::graph;
using Catch::Matchers::Contains;

namespace {

/// A labelled ring of `n` nodes with about half of its [n, f] features stored, positive, some
/// rows empty (they must stay unnormalised), values drawn from `seed`.
NodeDataset random_dense_dataset(int64_t n, int64_t f, uint64_t seed) {
  Rng rng(seed);
  NodeDataset d;
  d.name = "rows";
  d.num_nodes = n;
  std::vector<int64_t> row, col;
  std::vector<float> value;
  for (int64_t i = 0; i < n; ++i) {
    if (i % 11 == 3) continue;  // an empty row
    for (int64_t c = 0; c < f; ++c) {
      if (rng.uniform() < 0.5f) continue;
      row.push_back(i);
      col.push_back(c);
      value.push_back(rng.uniform(0.01f, 3.0f));
    }
  }
  d.features = SparseMatrix::from_triplets(n, f, row, col, value);
  d.num_classes = 2;
  for (int64_t i = 0; i < n; ++i) {
    d.labels.push_back(i % 2);
    d.edge_src.push_back(i);
    d.edge_dst.push_back((i + 1) % n);
    (i % 3 == 0 ? d.train : i % 3 == 1 ? d.val : d.test).push_back(i);
  }
  return d;
}

/// Ids of a batch: unordered, with repeats and runs of consecutive ids.
std::vector<int64_t> batch_ids(int64_t n, int64_t count, uint64_t seed) {
  Rng rng(seed);
  std::vector<int64_t> ids;
  while (static_cast<int64_t>(ids.size()) < count) {
    const auto first = static_cast<int64_t>(rng.below(static_cast<uint64_t>(n)));
    const int64_t run = 1 + static_cast<int64_t>(rng.below(4));
    for (int64_t k = 0; k < run && first + k < n; ++k) ids.push_back(first + k);
  }
  ids.push_back(ids.front());
  return ids;
}

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && std::memcmp(a.data(), b.data(), sizeof(float) * a.numel()) == 0;
}

}  // namespace

TEST_CASE("normalised feature rows are the bits of SparseMatrix::normalize_rows", "[graph]") {
  const NodeDataset d = random_dense_dataset(40, 9, 3);
  SparseMatrix normalised = d.features;
  normalised.normalize_rows();
  const Tensor expected = normalised.to_dense();  // [N, F]
  Tensor rows = d.features.to_dense();
  for (int64_t i = 0; i < rows.dim(0); ++i) normalize_feature_row(rows.data() + i * rows.dim(1), rows.dim(1));
  CHECK(same_bits(rows, expected));
  std::vector<int64_t> all(40);
  for (int64_t i = 0; i < 40; ++i) all[static_cast<std::size_t>(i)] = i;
  CHECK(same_bits(InMemoryFeatureRows(d.features, true).gather(all), expected));
  CHECK(same_bits(InMemoryFeatureRows(d.features, false).gather(all), d.features.to_dense()));
}

TEST_CASE("the feature hook gives a batch the rows sampled_features takes from memory", "[graph]") {
  const NodeDataset d = random_dense_dataset(50, 6, 4);
  SparseMatrix normalised = d.features;
  normalised.normalize_rows();
  const std::vector<int64_t> ids = {7, 0, 49, 7, 13};
  InMemoryFeatureRows rows(d.features, true);
  const NodeFeatures batch = gather_node_features(rows, ids);
  REQUIRE_FALSE(batch.is_sparse());
  CHECK_FALSE(batch.dense.requires_grad());
  const NodeFeatures expected =
      sampled_features(NodeFeatures(std::make_shared<const SparseMatrix>(normalised)), ids);  // sparse [5, F]
  CHECK(same_bits(batch.dense.value(), expected.sparse->to_dense()));
  // Featureless: the identity's rows, as in memory.
  InMemoryFeatureRows none(SparseMatrix::from_triplets(50, 0, {}, {}, {}), false);
  const NodeFeatures one_hot = gather_node_features(none, ids);
  REQUIRE(one_hot.is_sparse());
  const NodeFeatures identity = sampled_features(NodeFeatures(identity_features(50)), ids);
  CHECK(same_bits(one_hot.sparse->to_dense(), identity.sparse->to_dense()));
}

TEST_CASE("rows read from the graph file equal the rows in memory, whatever the cache and selection",
          "[graph][io]") {
  testing::TempDir dir;
  const int64_t n = 500, f = 7;
  const NodeDataset d = random_dense_dataset(n, f, 11);
  save_node_dataset(dir.file("chunked.h5"), d, {FeatureLayout::kDense, 16, true});
  save_node_dataset(dir.file("contiguous.h5"), d, {FeatureLayout::kDense, 0, false});
  const int64_t row_bytes = f * 4;
  for (const char* name : {"chunked.h5", "contiguous.h5"}) {
    for (bool normalize : {false, true}) {
      InMemoryFeatureRows memory(d.features, normalize);
      for (RowSelection selection : {RowSelection::kHyperslabs, RowSelection::kPoints}) {
        for (int64_t budget : {int64_t{0}, 10 * row_bytes + 3, 200 * row_bytes, n * row_bytes}) {
          INFO(name << ", normalize " << normalize << ", points " << (selection == RowSelection::kPoints) << ", budget "
                    << budget);
          Hdf5FeatureRows file_rows(dir.file(name), {budget, selection, normalize});
          CHECK(file_rows.reads_directly() == (std::string(name) == "contiguous.h5"));
          CHECK(file_rows.rows() == n);
          CHECK(file_rows.cols() == f);
          for (uint64_t batch = 0; batch < 12; ++batch) {
            const std::vector<int64_t> ids = batch_ids(n, 60, batch % 6);  // every batch comes twice
            REQUIRE(same_bits(file_rows.gather(ids), memory.gather(ids)));
            const FeatureRowsStats s = file_rows.stats();
            REQUIRE(s.cache_bytes <= budget);
            REQUIRE(s.cache_rows * row_bytes <= s.cache_bytes);
          }
          const FeatureRowsStats s = file_rows.stats();
          CHECK(s.gathers == 12);
          if (budget == 0) CHECK(s.cache_hits == 0);
          if (budget == n * row_bytes) CHECK(s.cache_misses <= n);  // every row read once at most
          if (budget >= 200 * row_bytes) CHECK(s.cache_hits > 0);
        }
      }
    }
  }
}

TEST_CASE("the dense layout stores features in row chunks and reads back as the CSR layout", "[graph][io]") {
  testing::TempDir dir;
  const NodeDataset d = random_dense_dataset(300, 6, 5);
  save_node_dataset(dir.file("csr.h5"), d, {FeatureLayout::kCsr, 64, false});
  save_node_dataset(dir.file("dense.h5"), d, {FeatureLayout::kDense, 32, false});
  save_node_dataset(dir.file("zipped.h5"), d, {FeatureLayout::kDense, 50, true});
  save_node_dataset(dir.file("auto.h5"), d);  // about half full: dense
  save_node_dataset(dir.file("contiguous.h5"), d, {FeatureLayout::kDense, 0, false});
  CHECK_THROWS_WITH(save_node_dataset(dir.file("x.h5"), d, {FeatureLayout::kDense, 0, true}), Contains("0 rows per chunk"));
  {
    const Hdf5File csr = Hdf5File::open(dir.file("csr.h5"));
    CHECK(csr.schema_version() == 1);
    CHECK_FALSE(csr.exists(kDenseFeaturesPath));
    const Hdf5File dense = Hdf5File::open(dir.file("dense.h5"));
    CHECK(dense.schema_version() == 2);
    CHECK(dense.dataset_shape(kDenseFeaturesPath) == Shape{300, 6});
    CHECK(dense.dataset_chunk_shape(kDenseFeaturesPath) == Shape{32, 6});
    CHECK_FALSE(dense.dataset_compressed(kDenseFeaturesPath));
    CHECK_FALSE(dense.exists("/features/indptr"));
    const Hdf5File zipped = Hdf5File::open(dir.file("zipped.h5"));
    CHECK(zipped.dataset_chunk_shape(kDenseFeaturesPath) == Shape{50, 6});
    CHECK(zipped.dataset_compressed(kDenseFeaturesPath));
    CHECK(Hdf5File::open(dir.file("auto.h5")).exists(kDenseFeaturesPath));
    const Hdf5File contiguous = Hdf5File::open(dir.file("contiguous.h5"));
    CHECK(contiguous.dataset_chunk_shape(kDenseFeaturesPath).empty());
    CHECK(contiguous.raw_data_offset(kDenseFeaturesPath) > 0);
    CHECK(dense.raw_data_offset(kDenseFeaturesPath) == -1);
  }
  for (const char* name : {"csr.h5", "dense.h5", "zipped.h5", "auto.h5", "contiguous.h5"}) {
    INFO(name);
    const NodeDataset back = load_node_dataset_h5(dir.file(name));
    CHECK(back.features.indptr() == d.features.indptr());
    CHECK(back.features.indices() == d.features.indices());
    CHECK(back.features.values() == d.features.values());
    CHECK(back.edge_src == d.edge_src);
    CHECK(back.train == d.train);
  }
  // Sparse bag-of-words features stay CSR by default.
  NodeDataset sparse = d;
  sparse.features = SparseMatrix::from_triplets(300, 6, {0, 5}, {1, 2}, {1.0f, 2.0f});
  CHECK(resolve_feature_layout(FeatureLayout::kAuto, sparse.features) == FeatureLayout::kCsr);
  CHECK(resolve_feature_layout(FeatureLayout::kDense, sparse.features) == FeatureLayout::kDense);
  CHECK(resolve_feature_layout(FeatureLayout::kDense, SparseMatrix::from_triplets(3, 0, {}, {}, {})) ==
        FeatureLayout::kCsr);
}

TEST_CASE("a graph opened without its features reads their rows on demand", "[graph][io]") {
  testing::TempDir dir;
  const NodeDataset d = random_dense_dataset(120, 5, 8);
  save_node_dataset(dir.file("dense.h5"), d, {FeatureLayout::kDense, 8, false});
  save_node_dataset(dir.file("csr.h5"), d, {FeatureLayout::kCsr, 8, false});
  const std::vector<int64_t> ids = batch_ids(120, 30, 2);
  InMemoryFeatureRows memory(d.features, true);
  const Tensor expected = memory.gather(ids);
  for (const char* name : {"dense.h5", "csr.h5"}) {
    INFO(name);
    GraphStructure g = load_graph_structure_h5(dir.file(name), {1 << 10, RowSelection::kHyperslabs, true});
    CHECK(g.dataset.features.rows() == 0);
    CHECK(g.dataset.features.cols() == 0);
    CHECK(g.dataset.num_nodes == 120);
    CHECK(g.dataset.labels == d.labels);
    CHECK(g.dataset.edge_dst == d.edge_dst);
    CHECK(g.dataset.test == d.test);
    REQUIRE(g.features != nullptr);
    CHECK(g.features->cols() == 5);
    CHECK(same_bits(g.features->gather(ids), expected));
  }
  CHECK(dynamic_cast<Hdf5FeatureRows*>(
            load_graph_structure_h5(dir.file("dense.h5"), {}).features.get()) != nullptr);
}

TEST_CASE("feature rows refuse a file without dense features and ids outside the matrix", "[graph][io]") {
  testing::TempDir dir;
  const NodeDataset d = random_dense_dataset(20, 4, 1);
  save_node_dataset(dir.file("csr.h5"), d, {FeatureLayout::kCsr, 8, false});
  CHECK_THROWS_WITH(Hdf5FeatureRows(dir.file("csr.h5"), {}), Contains("--features-layout dense"));
  save_node_dataset(dir.file("dense.h5"), d, {FeatureLayout::kDense, 8, false});
  {
    Hdf5FeatureRows rows(dir.file("dense.h5"), {1 << 10, RowSelection::kHyperslabs, false});
    CHECK_THROWS_AS(rows.gather({3, 20}), Error);
    CHECK_THROWS_AS(rows.gather({-1}), Error);
    // A failed gather leaves the reader usable.
    InMemoryFeatureRows memory(d.features, false);
    CHECK(same_bits(rows.gather({3, 4, 3}), memory.gather({3, 4, 3})));
  }
  {
    Hdf5File file = Hdf5File::open_rw(dir.file("dense.h5"));
    file.set_attr("/", "num_nodes", int64_t{21});
  }
  CHECK_THROWS_WITH(Hdf5FeatureRows(dir.file("dense.h5"), {}), Contains("expected [21, F]"));
  // A contiguous file cut short is refused when opened, not read past its end.
  save_node_dataset(dir.file("contiguous.h5"), d, {FeatureLayout::kDense, 0, false});
  std::filesystem::resize_file(dir.file("contiguous.h5"), std::filesystem::file_size(dir.file("contiguous.h5")) - 200);
  CHECK_THROWS_AS(Hdf5FeatureRows(dir.file("contiguous.h5"), {}), InputError);
}

namespace {
/// Every parameter of the model a run trained, flattened in checkpoint order.
std::vector<float> trained_parameters(const PreparedNodeData& data, const NodeModelSpec& spec, NodeRunOptions o) {
  Registry registry;
  register_graph_layers(registry);
  CheckpointData checkpoint;
  o.checkpoint_out = &checkpoint;
  o.progress.mode = ProgressMode::kSilent;
  train_node_classifier(data, spec, registry, o);
  std::vector<float> flat;
  for (const auto& [name, value] : checkpoint.parameters) flat.insert(flat.end(), value.begin(), value.end());
  return flat;
}
}  // namespace

TEST_CASE("sampled training with features out of core trains the model the same rows in memory train", "[graph][io]") {
  testing::TempDir dir;
  const NodeDataset d = random_dense_dataset(300, 6, 9);
  save_node_dataset(dir.file("g.h5"), d, {FeatureLayout::kDense, 0, false});
  const NodeModelSpec spec = NodeModelSpec::from_json(
      {{"layers", Json::array({{{"type", "gat"}, {"heads", 2}, {"out_channels", 4}, {"dropout", 0.2}}, {{"type", "gat"}}})},
       {"optimizer", {{"type", "adam"}, {"lr", 0.01}}},
       {"epochs", 3},
       {"patience", 0},
       {"normalize_features", true}},
      "test");
  NodeRunOptions o;
  o.seed = 5;
  o.minibatch = MiniBatchOptions{};
  o.minibatch->sampler.fanouts = {4, 3};
  o.minibatch->batch_size = 32;
  o.inference.mode = InferenceMode::kSampled;
  o.inference.sampler.fanouts = {4, 3};
  const PreparedNodeData out_of_core =
      prepare_node_data_out_of_core(load_graph_structure_h5(dir.file("g.h5"), {64 * 6 * 4, RowSelection::kHyperslabs, true}));
  CHECK_FALSE(out_of_core.features.dense.defined());
  CHECK(out_of_core.dataset.num_features() == 6);
  // The same dense rows from memory, through the hook of the in-memory data.
  PreparedNodeData in_memory = prepare_node_data(d, true);
  auto memory_rows = std::make_shared<InMemoryFeatureRows>(d.features, true);
  in_memory.feature_rows = [memory_rows](const std::vector<int64_t>& ids) { return gather_node_features(*memory_rows, ids); };
  const std::vector<float> from_file = trained_parameters(out_of_core, spec, o);
  CHECK(from_file == trained_parameters(in_memory, spec, o));
  // The graph read from the file as a compact in-edge index (its views never built) trains
  // the same bits, sampled and layer-wise.
  const PreparedNodeData lean = prepare_node_data_out_of_core(load_graph_structure_h5(
      dir.file("g.h5"), {64 * 6 * 4, RowSelection::kHyperslabs, true}, StructureEdges::kIndex));
  CHECK(lean.dataset.edge_src.empty());
  CHECK(trained_parameters(lean, spec, o) == from_file);
  o.inference.mode = InferenceMode::kLayerwise;
  CHECK(trained_parameters(lean, spec, o) == trained_parameters(out_of_core, spec, o));
  o.inference.mode = InferenceMode::kSampled;
  o.seed = 6;
  CHECK(from_file != trained_parameters(out_of_core, spec, o));
  // Full-batch training and full inference need the whole matrix.
  o.inference.mode = InferenceMode::kFull;
  CHECK_THROWS_WITH(trained_parameters(out_of_core, spec, o), Contains("out of core"));
  o.inference.mode = InferenceMode::kLayerwise;
  o.minibatch.reset();
  CHECK_THROWS_WITH(trained_parameters(out_of_core, spec, o), Contains("--fanouts"));
}
