#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <algorithm>
#include <map>

#include "attend/core/error.hpp"
#include "attend/graph/planetoid_text.hpp"

using namespace attend;
namespace fs = std::filesystem;

TEST_CASE("the shipped Cora has the Planetoid counts", "[graph][io]") {
  const graph::NodeDataset d = graph::load_planetoid_text(ATTEND_DATA_DIR "/graphs/cora");
  CHECK(d.num_nodes == 2708);
  CHECK(d.num_features() == 1433);
  CHECK(d.features.nnz() == 49216);
  CHECK(d.num_classes == 7);
  CHECK(d.num_edges() == 5278);
  CHECK(d.train.size() == 140);
  CHECK(d.val.size() == 500);
  CHECK(d.test.size() == 1000);
}

TEST_CASE("the shipped CiteSeer and PubMed have the Planetoid counts", "[graph][io]") {
  const graph::NodeDataset c = graph::load_planetoid_text(ATTEND_DATA_DIR "/graphs/citeseer");
  CHECK(c.num_nodes == 3327);
  CHECK(c.num_features() == 3703);
  CHECK(c.num_classes == 6);
  CHECK(std::count(c.labels.begin(), c.labels.end(), -1) == 15);
  CHECK(c.train.size() == 120);
  const graph::NodeDataset p = graph::load_planetoid_text(ATTEND_DATA_DIR "/graphs/pubmed");
  CHECK(p.num_nodes == 19717);
  CHECK(p.features.nnz() == 988031);
  CHECK(p.num_edges() == 44327);
  CHECK(p.train.size() == 60);
}

namespace {
// A tiny valid dataset, one file per entry; a test case overrides one file to break it.
std::map<std::string, std::string> tiny_dataset() {
  return {{"features.coo.txt", "# 3 2 3\n0 0 1\n1 1 1\n2 0 0.5\n"},
          {"labels.txt", "0\n1\n0\n"},
          {"edges.txt", "# 3 2\n0 1\n1 2\n"},
          {"split_train.txt", "0\n"},
          {"split_val.txt", "1\n"},
          {"split_test.txt", "2\n"}};
}

fs::path write_dataset(const std::string& name, const std::map<std::string, std::string>& files) {
  const fs::path dir = fs::temp_directory_path() / "attend_test_planetoid" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const auto& [file, text] : files) std::ofstream(dir / file) << text;
  return dir;
}

std::string load_error(const std::string& name, const std::string& file, const std::string& text) {
  auto files = tiny_dataset();
  files[file] = text;
  try {
    graph::load_planetoid_text(write_dataset(name, files).string());
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("a tiny text dataset loads", "[graph][io]") {
  const auto d = graph::load_planetoid_text(write_dataset("good", tiny_dataset()).string());
  CHECK(d.num_nodes == 3);
  CHECK(d.features.to_dense().at({2, 0}) == 0.5f);
  CHECK(d.edge_dst == std::vector<int64_t>{1, 2});
}

TEST_CASE("broken text datasets are reported with file and line", "[graph][io]") {
  using Catch::Matchers::Contains;
  CHECK_THAT(load_error("bad_header", "features.coo.txt", "3 2 3\n"), Contains("features.coo.txt:1: expected a header"));
  CHECK_THAT(load_error("bad_value", "features.coo.txt", "# 3 2 1\n0 0 x\n"), Contains("features.coo.txt:2: expected a feature value"));
  CHECK_THAT(load_error("bad_feature", "features.coo.txt", "# 3 2 1\n0 5 1\n"), Contains("features.coo.txt:2: feature index 5 outside"));
  CHECK_THAT(load_error("bad_count", "features.coo.txt", "# 3 2 4\n0 0 1\n"), Contains("announces 4 entries"));
  CHECK_THAT(load_error("bad_edge", "edges.txt", "# 3 1\n0 7\n"), Contains("edges.txt:2: node id 7 outside 0..2"));
  CHECK_THAT(load_error("bad_labels", "labels.txt", "0\n1\n"), Contains("2 labels for 3 nodes"));
  CHECK_THAT(load_error("bad_split", "split_val.txt", "0\n"), Contains("the val split's node 0 is already in the train split"));
  // Found by scripts/fuzz_inputs.py: a class id of INT64_MAX overflowed the class count, and a
  // header's N alone sized the feature matrix before the labels could refute it.
  CHECK_THAT(load_error("huge_class", "labels.txt", "0\n9223372036854775807\n0\n"),
             Contains("labels.txt:2: class id 9223372036854775807 not below the number of nodes, 3"));
  CHECK_THAT(load_error("huge_n", "features.coo.txt", "# 99999999999 2 1\n0 0 1\n"),
             Contains("labels.txt:3: 3 labels for 99999999999 nodes"));
  CHECK_THAT(load_error("negative_n", "features.coo.txt", "# -3 2 0\n"),
             Contains("features.coo.txt:1: negative count in the header"));
  fs::remove(write_dataset("missing", tiny_dataset()) / "labels.txt");
  CHECK_THROWS_WITH(graph::load_planetoid_text((fs::temp_directory_path() / "attend_test_planetoid" / "missing").string()),
                    Contains("labels.txt: missing file"));
}
