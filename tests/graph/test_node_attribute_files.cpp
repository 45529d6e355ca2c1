// Labels and features of an edge list from files of their own (node_attribute_files.hpp).
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

#include "attend/core/error.hpp"
#include "attend/graph/edge_list_file.hpp"
#include "attend/graph/node_attribute_files.hpp"
#include "temp_dir.hpp"

using namespace attend;
using namespace attend::graph;
using attend::testing::TempDir;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

std::string write(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

/// A float32 .npy file [rows, cols] holding `values` in C order.
std::string write_npy(const fs::path& path, int rows, int cols, const std::vector<float>& values) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(rows) + ", " +
                       std::to_string(cols) + "), }";
  header += std::string(63 - (10 + header.size()) % 64, ' ') + "\n";
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>(header.size() >> 8);
  std::string data(values.size() * 4, '\0');
  std::memcpy(data.data(), values.data(), data.size());
  return write(path, bytes + header + data);
}

std::string error_of(const std::function<void()>& attach) {
  try {
    attach();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

/// Feature row `node` of `d` as a dense vector.
std::vector<float> feature_row(const NodeDataset& d, int64_t node) {
  std::vector<float> row(static_cast<std::size_t>(d.num_features()), 0.0f);
  for (int64_t k = d.features.indptr()[node]; k < d.features.indptr()[node + 1]; ++k) {
    row[static_cast<std::size_t>(d.features.indices()[k])] = d.features.values()[k];
  }
  return row;
}

}  // namespace

TEST_CASE("labels and features files attach to an edge list by node name", "[graph][io]") {
  TempDir dir;
  // Nodes are numbered by first appearance: "2" is node 0, "0" node 1, "1" node 2.
  NodeDataset d = load_edge_list(write(dir.path() / "g.edgelist", "2 0\n0 1\n"));
  REQUIRE(d.num_nodes == 3);
  attach_node_attributes(d, {write(dir.path() / "labels.txt", "# node label\n0 4\n2 1\n"),
                             write_npy(dir.path() / "x.npy", 3, 2, {0, 0, 1, 10, 2, 20})});
  CHECK(d.labels == std::vector<int64_t>{1, 4, -1});
  CHECK(d.num_classes == 5);
  CHECK(d.class_names.empty());
  CHECK(feature_row(d, 0) == std::vector<float>{2, 20});
  CHECK(feature_row(d, 1) == std::vector<float>{0, 0});
  CHECK(feature_row(d, 2) == std::vector<float>{1, 10});

  // Class names are numbered in sorted order; a text table of features.
  attach_node_attributes(d, {write(dir.path() / "names.txt", "0 theory\n1 bio\n2 theory\n"),
                             write(dir.path() / "x.txt", "1 0.5 1\n0 1.5 0\n2 2.5 -1\n")});
  CHECK(d.class_names == std::vector<std::string>{"bio", "theory"});
  CHECK(d.labels == std::vector<int64_t>{1, 1, 0});
  CHECK(feature_row(d, 0) == std::vector<float>{2.5f, -1});
  CHECK(feature_row(d, 1) == std::vector<float>{1.5f, 0});
  CHECK(feature_row(d, 2) == std::vector<float>{0.5f, 1});
}

TEST_CASE("bad labels and features files name the file, the line and the node", "[graph][io]") {
  TempDir dir;
  const std::string edges = write(dir.path() / "g.edgelist", "a b\nb c\n");
  const auto attach = [&](const std::string& labels, const std::string& features) {
    return error_of([&] {
      NodeDataset d = load_edge_list(edges);
      attach_node_attributes(d, {labels, features});
    });
  };
  const auto file = [&](const std::string& name, const std::string& text) { return write(dir.path() / name, text); };
  CHECK_THAT(attach(file("l1.txt", "a 0\nz 1\n"), ""), Contains("l1.txt:2: node 'z' is not in the graph"));
  CHECK_THAT(attach(file("l2.txt", "a 0\nb 1\na 1\n"), ""), Contains("l2.txt:3: node 'a' is listed twice (first on line 1)"));
  CHECK_THAT(attach(file("l4.txt", "a 9223372036854775807\n"), ""), Contains("l4.txt:1: class id 9223372036854775807 is too large"));
  CHECK_THAT(attach(file("l3.txt", "a 0 1\n"), ""), Contains("l3.txt:1: expected 'node label', got 3 fields"));
  CHECK_THAT(attach("", file("f1.txt", "a 1 2\nb 1\n")), Contains("f1.txt:2: expected 2 values as on the first line, got 1"));
  CHECK_THAT(attach("", file("f2.txt", "a 1\nb x\nc 1\n")), Contains("f2.txt:2: expected a feature value"));
  CHECK_THAT(attach("", file("f3.txt", "a 1\nb 1\n")), Contains("f3.txt: node 'c' has no features line"));
  CHECK_THAT(attach("", file("f4.txt", "a 1\nq 1\n")), Contains("f4.txt:2: node 'q' is not in the graph"));
  CHECK_THAT(attach("", write_npy(dir.path() / "x.npy", 1, 1, {1})), Contains("row 0 is node '0', which is not in the graph"));
  CHECK_THAT(attach("", dir.path().string() + "/none.txt"), Contains("none.txt"));
}
