// The data users already have: NumPy arrays (.npz, a folder of .npy), OGB's node folder,
// NetworkX and CSV edge lists, the edge-feature file of the text layouts and a LINQS split,
// each read into the same dataset; edge features through the graph file and GraphContext;
// the training-curves picture.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>

#include "attend/core/error.hpp"
#include "attend/core/io/npy_array.hpp"
#include "attend/core/io/zip_archive.hpp"
#include "attend/graph/edge_feature_file.hpp"
#include "attend/graph/edge_list_file.hpp"
#include "attend/graph/graph_context.hpp"
#include "attend/graph/graph_store.hpp"
#include "attend/graph/linqs.hpp"
#include "attend/graph/load_dataset.hpp"
#include "attend/graph/numpy_dataset.hpp"
#include "attend/graph/training_curves.hpp"
#include "temp_dir.hpp"

using namespace attend;
using namespace attend::graph;
using attend::testing::TempDir;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

const std::string kFixtures = std::string(ATTEND_TEST_DATA_DIR) + "/formats";

std::string error_of(const std::function<void()>& load) {
  try {
    load();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

/// The fixture graph as make_fixtures.py defines it, computed here independently: the ring
/// 0-1-...-5-0, pair (i, i+1) with edge features (i, i / 4).
std::map<std::pair<int64_t, int64_t>, std::vector<float>> ring_pairs() {
  std::map<std::pair<int64_t, int64_t>, std::vector<float>> pairs;
  for (int64_t i = 0; i < 6; ++i) {
    const int64_t j = (i + 1) % 6;
    pairs[{std::min(i, j), std::max(i, j)}] = {static_cast<float>(i), 0.25f * static_cast<float>(i)};
  }
  return pairs;
}

/// The dataset's edges as unordered pairs with their feature rows (a pair listed twice must
/// carry the same row).
std::map<std::pair<int64_t, int64_t>, std::vector<float>> pairs_of(const NodeDataset& d) {
  std::map<std::pair<int64_t, int64_t>, std::vector<float>> pairs;
  const auto width = static_cast<std::size_t>(d.edge_feature_dim);
  for (int64_t e = 0; e < d.num_edges(); ++e) {
    const std::pair key{std::min(d.edge_src[e], d.edge_dst[e]), std::max(d.edge_src[e], d.edge_dst[e])};
    const auto row = d.edge_features.begin() + static_cast<std::ptrdiff_t>(e * d.edge_feature_dim);
    const std::vector<float> features(row, row + static_cast<std::ptrdiff_t>(width));
    const auto [it, added] = pairs.emplace(key, features);
    if (!added) CHECK(it->second == features);
  }
  return pairs;
}

/// x[i][j] = 0 where (i + j) % 3 == 0, else i + j / 2.
void check_ring_nodes(const NodeDataset& d) {
  REQUIRE(d.num_nodes == 6);
  REQUIRE(d.num_features() == 3);
  const Tensor x = d.features.to_dense();
  for (int64_t i = 0; i < 6; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      const float expected = (i + j) % 3 == 0 ? 0.0f : static_cast<float>(i) + 0.5f * static_cast<float>(j);
      CHECK(x.data()[i * 3 + j] == expected);
    }
  }
  CHECK(d.labels == std::vector<int64_t>{0, 1, 2, 0, 1, 2});
  CHECK(d.num_classes == 3);
  CHECK(d.train == std::vector<int64_t>{0, 1, 2});
  CHECK(d.val == std::vector<int64_t>{3});
  CHECK(d.test == std::vector<int64_t>{4, 5});
  CHECK_FALSE(d.directed);
  CHECK(d.edge_feature_dim == 2);
  CHECK(pairs_of(d) == ring_pairs());
}

}  // namespace

TEST_CASE("a NumPy .npz archive and a folder of .npy files give the fixture graph", "[graph][io]") {
  for (const std::string name : {"ring.npz", "ring_npy"}) {
    INFO(name);
    const std::string path = kFixtures + "/" + name;
    CHECK(is_numpy_dataset(path));
    const NodeDataset d = load_node_dataset(path);
    check_ring_nodes(d);
    CHECK(d.num_edges() == 12);  // both directions, as PyG lists them
    CHECK(d.warnings.empty());
  }
}

TEST_CASE("OGB's node-property folder gives the fixture graph", "[graph][io]") {
  const NodeDataset d = load_node_dataset(kFixtures + "/ogbn_ring");
  check_ring_nodes(d);
  CHECK(d.name == "ogbn_ring");
  CHECK(d.num_edges() == 6);
}

TEST_CASE("NetworkX and CSV edge lists give the fixture ring with named nodes", "[graph][io]") {
  for (const std::string name : {"ring.edgelist", "ring.csv"}) {
    INFO(name);
    const NodeDataset d = load_node_dataset(kFixtures + "/" + name);
    CHECK(d.name == "ring");
    CHECK(d.node_names == std::vector<std::string>{"a", "b", "c", "d", "e", "f"});
    CHECK(d.labels == std::vector<int64_t>(6, -1));
    CHECK(d.num_features() == 0);
    CHECK(d.edge_feature_dim == 2);
    CHECK(pairs_of(d) == ring_pairs());
  }
}

TEST_CASE("edge lists without attributes and with data columns", "[graph][io]") {
  TempDir dir;
  const NodeDataset plain = load_edge_list(write(dir.path() / "g.edgelist", "1 2\n2 3  # a comment\n\n3 1\n"));
  CHECK(plain.node_names == std::vector<std::string>{"1", "2", "3"});
  CHECK(plain.edge_src == std::vector<int64_t>{0, 1, 2});
  CHECK_FALSE(plain.has_edge_features());
  const NodeDataset empty_dicts = load_edge_list(write(dir.path() / "e.edges", "x y {}\ny z {}\n"));
  CHECK(empty_dicts.num_edges() == 2);
  CHECK_FALSE(empty_dicts.has_edge_features());
  const NodeDataset columns = load_edge_list(write(dir.path() / "c.edgelist", "x y 1.5 2\ny z -1 0\n"));
  CHECK(columns.edge_features == std::vector<float>{1.5f, 2.0f, -1.0f, 0.0f});
}

TEST_CASE("broken edge lists name the file, the line and what was expected", "[graph][io]") {
  TempDir dir;
  const auto load = [&](const std::string& name, const std::string& text) {
    return error_of([&] { load_edge_list(write(dir.path() / name, text)); });
  };
  CHECK_THAT(load("a.edgelist", "x y\nz\n"), Contains("a.edgelist:2: expected 'u v [data]'"));
  CHECK_THAT(load("b.edgelist", "x y {'w': 1}\ny z {'v': 1}\n"), Contains("b.edgelist:2: edge attributes"));
  CHECK_THAT(load("c.edgelist", "x y {'w': 'red'}\n"), Contains("c.edgelist:1: edge attribute 'w' is text"));
  CHECK_THAT(load("d.edgelist", "x y {'w' 1}\n"), Contains("d.edgelist:1: expected ':'"));
  CHECK_THAT(load("e.edgelist", "x y {'w': 1, 'w': 2}\n"), Contains("given twice"));
  CHECK_THAT(load("f.edgelist", "x y 1\ny z\n"), Contains("f.edgelist:2: expected 1 edge attributes"));
  CHECK_THAT(load("g.edgelist", "x y nan\n"), Contains("g.edgelist:1: expected an edge attribute"));
  CHECK_THAT(load("h.csv", "source\n"), Contains("h.csv:1: expected a header"));
  CHECK_THAT(load("i.csv", "s,t,w\na,b,1\na,b\n"), Contains("i.csv:3: expected 3 comma-separated fields"));
  CHECK_THAT(load("j.csv", "s,t\n,b\n"), Contains("j.csv:2: an empty node name"));
  CHECK_THAT(load("k.csv", ""), Contains("k.csv: empty file"));
}

TEST_CASE("the .npy reader takes every integer and float width and refuses what it cannot read", "[core][io]") {
  const auto npy = [](const std::string& descr, const std::string& shape, const std::string& data, bool fortran = false) {
    std::string header = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + shape + ", }";
    header += std::string(63 - (10 + header.size()) % 64, ' ') + "\n";
    std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
    bytes += static_cast<char>(header.size() & 0xff);
    bytes += static_cast<char>(header.size() >> 8);
    return bytes + header + data;
  };
  const std::string minus_two_i2("\xfe\xff", 2), three_u4("\x03\0\0\0", 4);
  CHECK(io::parse_npy(npy("<i2", "(2,)", minus_two_i2 + minus_two_i2), "a").to_int64("a") == std::vector<int64_t>{-2, -2});
  CHECK(io::parse_npy(npy("<u4", "(1, 1)", three_u4), "a").to_int64("a") == std::vector<int64_t>{3});
  float half = 0.5f;
  std::string half_bytes(4, '\0');
  std::memcpy(half_bytes.data(), &half, 4);
  const io::NpyArray f = io::parse_npy(npy("<f4", "()", half_bytes), "a");
  CHECK(f.shape.empty());
  CHECK(f.to_float("a") == std::vector<float>{0.5f});
  CHECK_THAT(error_of([&] { f.to_int64("edge_index"); }), Contains("edge_index: expected integers"));
  CHECK_THAT(error_of([&] { io::parse_npy(npy(">i8", "(0,)", ""), "s"); }), Contains("s: big-endian dtype '>i8'"));
  // Fortran order (a transposed array): [[1, 2, 3], [4, 5, 6]] stored column by column.
  const std::string column_major("\x01\x04\x02\x05\x03\x06", 6);
  CHECK(io::parse_npy(npy("|u1", "(2, 3)", column_major, true), "s").to_int64("s") == std::vector<int64_t>{1, 2, 3, 4, 5, 6});
  CHECK_THAT(error_of([&] { io::parse_npy(npy("<c8", "(0,)", ""), "s"); }), Contains("expected bool, integers"));
  CHECK_THAT(error_of([&] { io::parse_npy(npy("<i8", "(2,)", std::string(15, '\0')), "s"); }),
             Contains("shape (2,) of 8-byte elements needs 16 data bytes, the file has 15"));
  CHECK_THAT(error_of([&] { io::parse_npy(npy("<i8", "(99999999999, 99999999999)", ""), "s"); }), Contains("too large"));
  CHECK_THAT(error_of([&] { io::parse_npy(npy("<i8", "(-1,)", ""), "s"); }), Contains("expected a dimension"));
  CHECK_THAT(error_of([&] { io::parse_npy("PK\x03\x04 not numpy", "s"); }), Contains("not a .npy file"));
  CHECK_THAT(error_of([&] { io::parse_npy(npy("<i8", "(1,)", "12345678").substr(0, 40), "s"); }), Contains("truncated npy header"));
  std::string huge_u8(8, '\xff');
  CHECK_THAT(error_of([&] { io::parse_npy(npy("<u8", "(1,)", huge_u8), "s").to_int64("y"); }), Contains("does not fit in int64"));
}

TEST_CASE("damaged .npz archives and arrays of the wrong shape are input errors", "[graph][io]") {
  TempDir dir;
  std::ifstream in(kFixtures + "/ring.npz", std::ios::binary);
  const std::string good((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // A flipped byte in the first member's deflate data: a CRC or inflate failure, not a crash.
  std::string damaged = good;
  damaged[80] = static_cast<char>(damaged[80] ^ 0x55);
  CHECK_THAT(error_of([&] { load_numpy_dataset(write(dir.path() / "d.npz", damaged)); }), Contains("d.npz"));
  CHECK_THAT(error_of([&] { load_numpy_dataset(write(dir.path() / "t.npz", good.substr(0, good.size() / 2))); }),
             Contains("t.npz: not a valid zip archive"));
  CHECK_THAT(error_of([&] { load_numpy_dataset(write(dir.path() / "n.npz", "not a zip")); }), Contains("not a valid zip archive"));
  // The first member's declared size (central directory entry, offset 24) made smaller than its data.
  std::string short_size = good;
  const std::size_t entry = short_size.find("PK\x01\x02");
  REQUIRE(entry != std::string::npos);
  short_size.replace(entry + 24, 4, std::string("\x0a\0\0\0", 4));
  CHECK_THAT(error_of([&] { load_numpy_dataset(write(dir.path() / "s.npz", short_size)); }),
             Contains("s.npz: member 'edge_index.npy': inflates past its declared 10 bytes"));

  const fs::path folder = dir.path() / "arrays";
  fs::copy(kFixtures + "/ring_npy", folder);
  fs::remove(folder / "val_idx.npy");
  fs::copy_file(folder / "test_mask.npy", folder / "val_idx.npy");  // booleans as ids are fine: 0/1
  fs::copy_file(folder / "y.npy", folder / "val_mask.npy");
  CHECK_THAT(error_of([&] { load_numpy_dataset(folder.string()); }), Contains("give val_mask or val_idx, not both"));
  fs::remove(folder / "val_idx.npy");
  CHECK_THAT(error_of([&] { load_numpy_dataset(folder.string()); }), Contains("val_mask: expected booleans (0 or 1), found 2"));
  fs::remove(folder / "val_mask.npy");
  fs::copy_file(folder / "y.npy", folder / "edge_type.npy");
  CHECK_THAT(error_of([&] { load_numpy_dataset(folder.string()); }), Contains("edge_type: expected shape (E,) with E = 12, found (6,)"));
  fs::remove(folder / "edge_type.npy");
  fs::copy_file(folder / "y.npy", folder / "extra.npy");
  const NodeDataset d = load_numpy_dataset(folder.string());
  REQUIRE(d.warnings.size() == 1);
  CHECK_THAT(d.warnings[0], Contains("arrays not read: 'extra'"));
  fs::remove(folder / "edge_index.npy");
  fs::copy_file(folder / "y.npy", folder / "edge_index.npy");
  CHECK_THAT(error_of([&] { load_numpy_dataset(folder.string()); }), Contains("edge_index: expected shape (2, E), found (6,)"));
  fs::remove(folder / "edge_index.npy");
  CHECK_THAT(error_of([&] { load_node_dataset(folder.string()); }), Contains("not a dataset folder"));
}

TEST_CASE("broken OGB folders name the file and the line", "[graph][io]") {
  TempDir dir;
  const fs::path root = dir.path() / "ogbn_x";
  fs::copy(kFixtures + "/ogbn_ring", root, fs::copy_options::recursive);
  write(root / "raw" / "node-label.csv.gz", "0\n1\n2\n0\n1\n");
  CHECK_THAT(error_of([&] { load_node_dataset(root.string()); }), Contains("node-label.csv.gz:5: 5 labels for 6 nodes"));
  write(root / "raw" / "node-label.csv.gz", "0,1\n");
  CHECK_THAT(error_of([&] { load_node_dataset(root.string()); }), Contains("multi-label"));
  write(root / "raw" / "node-label.csv.gz", "0\n1\nnan\n0.0\n1\n2.0\n");
  write(root / "split" / "random" / "train.csv.gz", "0\n1\n");
  const NodeDataset unlabelled = load_node_dataset(root.string());
  CHECK(unlabelled.labels == std::vector<int64_t>{0, 1, -1, 0, 1, 2});
  write(root / "raw" / "edge.csv.gz", "0,1\n1,9\n");
  CHECK_THAT(error_of([&] { load_node_dataset(root.string()); }), Contains("edge.csv.gz:2: node id 9 outside 0..5"));
  write(root / "raw" / "edge.csv.gz", "0,1\n1,2\n");
  CHECK_THAT(error_of([&] { load_node_dataset(root.string()); }), Contains("edge.csv.gz:2: 2 edges, expected 6"));
  write(root / "raw" / "edge.csv.gz", "0,1\n1,2\n2,3\n3,4\n4,5\n5,0\n");
  fs::create_directories(root / "split" / "other");
  CHECK_THAT(error_of([&] { load_node_dataset(root.string()); }), Contains("expected one split scheme folder, found 2"));
}

TEST_CASE("edge_features.txt gives a text layout's edges their features", "[graph][io]") {
  TempDir dir;
  const fs::path folder = dir.path() / "linqs";
  write(folder / "t.content", "p1\t1\tA\np2\t0\tB\np3\t1\tA\n");
  write(folder / "t.cites", "p1\tp2\np3\tp2\n");
  write(folder / kEdgeFeatureFile, "# cited citing features\np2 p3 0.5 1\np1 p2 2 3\n");
  const NodeDataset d = load_node_dataset(folder.string());
  // Edges go citing -> cited: (p2 -> p1), (p2 -> p3); undirected, so the file's order of u, v is free.
  CHECK(d.edge_feature_dim == 2);
  CHECK(d.edge_features == std::vector<float>{2, 3, 0.5f, 1});
  const auto fails = [&](const std::string& text) {
    write(folder / kEdgeFeatureFile, text);
    return error_of([&] { load_node_dataset(folder.string()); });
  };
  CHECK_THAT(fails("p1 p2 1\np2 p3 1 2\n"), Contains("edge_features.txt:2: expected 1 features"));
  CHECK_THAT(fails("p1 p9 1\n"), Contains("edge_features.txt:1: unknown node 'p9'"));
  CHECK_THAT(fails("p1 p3 1\n"), Contains("edge_features.txt:1: ('p1', 'p3') is not an edge"));
  CHECK_THAT(fails("p1 p2 1\np2 p1 1\n"), Contains("edge_features.txt:2: ('p2', 'p1') listed twice"));
  CHECK_THAT(fails("p1 p2 1\n"), Contains("no features for the edge ('p2', 'p3')"));
  CHECK_THAT(fails("p1 p2 inf\np2 p3 1\n"), Contains("edge_features.txt:1: expected an edge feature"));
}

TEST_CASE("a LINQS folder reads its split files of paper ids", "[graph][io]") {
  TempDir dir;
  const fs::path folder = dir.path() / "linqs";
  write(folder / "t.content", "p1\t1\tA\np2\t0\tB\np3\t1\tA\n");
  write(folder / "t.cites", "p1\tp2\n");
  CHECK(load_node_dataset(folder.string()).train.empty());
  write(folder / "split_train.txt", "p3\np1\n");
  write(folder / "split_test.txt", "p2\n");
  const NodeDataset d = load_node_dataset(folder.string());
  CHECK(d.train == std::vector<int64_t>{2, 0});
  CHECK(d.val.empty());
  CHECK(d.test == std::vector<int64_t>{1});
  write(folder / "split_val.txt", "p4\n");
  CHECK_THAT(error_of([&] { load_node_dataset(folder.string()); }), Contains("split_val.txt:1: unknown paper id 'p4'"));
  write(folder / "split_val.txt", "p1\n");
  CHECK_THAT(error_of([&] { load_node_dataset(folder.string()); }), Contains("already in the train split"));
}

TEST_CASE("edge features survive the graph file and reach both views of the graph", "[graph][io]") {
  TempDir dir;
  const NodeDataset d = load_node_dataset(kFixtures + "/ring.npz");
  save_node_dataset(dir.file("ring.h5"), d);
  const NodeDataset back = load_node_dataset(dir.file("ring.h5"));
  CHECK(back.edge_feature_dim == d.edge_feature_dim);
  CHECK(back.edge_features == d.edge_features);

  const GraphContext g = GraphContext::from_dataset(back);
  const auto pairs = ring_pairs();
  for (const GraphView* view : {&g.plain(), &g.looped()}) {
    REQUIRE(view->has_edge_features());
    REQUIRE(view->edge_features.dim(0) == view->num_edges());
    for (int64_t e = 0; e < view->num_edges(); ++e) {
      const int64_t u = view->src[e], v = view->dst[e];
      const float* row = view->edge_features.data() + e * 2;
      const std::vector<float> expected = u == v ? std::vector<float>{0, 0} : pairs.at({std::min(u, v), std::max(u, v)});
      CHECK(std::vector<float>(row, row + 2) == expected);
    }
  }

  // Directed: an edge and its inverse share the row.
  NodeDataset typed = d;
  typed.directed = true;
  typed.edge_type.assign(static_cast<std::size_t>(typed.num_edges()), 0);
  typed.relation_names = {"r"};
  const GraphContext t = GraphContext::from_dataset(typed);
  REQUIRE(t.plain().num_edges() == 2 * typed.num_edges());
  for (int64_t e = 0; e < t.plain().num_edges(); ++e) {
    CHECK(t.plain().edge_features.data()[e * 2] == typed.edge_features[static_cast<std::size_t>(e / 2) * 2]);
  }

  NodeDataset bad = d;
  bad.edge_features[3] = std::numeric_limits<float>::quiet_NaN();
  CHECK_THAT(error_of([&] { bad.validate(); }), Contains("non-finite edge feature value (nan) on edge 1"));
  bad.edge_features.pop_back();
  CHECK_THAT(error_of([&] { bad.validate(); }), Contains("23 edge feature values for 12 edges of 2 features"));
}

TEST_CASE("the training curves picture draws each finite series in its panel and colour", "[graph]") {
  const auto count = [](const RgbImage& image, int64_t from_x, int64_t to_x, uint8_t r, uint8_t g, uint8_t b) {
    int64_t n = 0;
    for (int64_t y = 0; y < image.height; ++y) {
      for (int64_t x = from_x; x < to_x; ++x) {
        const uint8_t* p = image.pixels.data() + (y * image.width + x) * 3;
        n += p[0] == r && p[1] == g && p[2] == b;
      }
    }
    return n;
  };
  std::vector<NodeEpoch> history;
  for (int e = 0; e < 20; ++e) history.push_back({2.0 / (e + 1), 0.05 * e, 2.5 / (e + 1), 0.04 * e});
  const RgbImage with_val = training_curves_image(history);
  const int64_t half = with_val.width / 2;
  CHECK(count(with_val, 0, half, 31, 119, 180) > 100);    // training loss, left
  CHECK(count(with_val, 0, half, 255, 127, 14) > 100);    // validation loss, left
  CHECK(count(with_val, half, with_val.width, 31, 119, 180) > 100);  // training accuracy, right
  CHECK(count(with_val, half, with_val.width, 255, 127, 14) > 100);  // validation accuracy, right
  // The text (titles, axis labels, tick values) in dark grey in both panels; the legend names
  // both series, top right.
  CHECK(count(with_val, 0, half, 40, 40, 40) > 300);
  CHECK(count(with_val, half, with_val.width, 40, 40, 40) > 300);
  RgbImage legend(with_val.width, 30, 255, 255, 255);
  std::copy(with_val.pixels.begin(), with_val.pixels.begin() + legend.pixels.size(), legend.pixels.begin());
  CHECK(count(legend, with_val.width - 140, with_val.width, 31, 119, 180) > 20);
  CHECK(count(legend, with_val.width - 140, with_val.width, 255, 127, 14) > 20);
  for (NodeEpoch& e : history) e.val_loss = e.val_acc = NAN;  // no validation split
  const RgbImage without_val = training_curves_image(history);
  CHECK(count(without_val, 0, without_val.width, 255, 127, 14) == 0);  // nor in the legend
  CHECK(count(without_val, 0, half, 31, 119, 180) > 100);
}
