// `attend convert --graph | --triples ... --to FILE` run in process.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "attend/core/builtin_layers.hpp"
#include "attend/core/hdf5_file.hpp"
#include "attend/graph/builtin_layers.hpp"
#include "attend/graph/graph_store.hpp"
#include "cli.hpp"
#include "run_attend.hpp"
#include "temp_dir.hpp"
#include "two_cluster_dataset.hpp"

using namespace attend;
namespace fs = std::filesystem;

namespace {
using attend::testing::write_two_cluster_dataset;
using Result = attend::testing::CliResult;

Result run(std::vector<std::string> args) { return attend::testing::run_attend(std::move(args)); }

std::size_t lines(const std::string& text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

// `train --json` on `data`, the runs without their timing.
nlohmann::json train_runs(const std::string& data, const std::string& json) {
  const Result r = run({"node-classify", "train", "--data", data, "--epochs", "20", "--runs", "2", "--quiet", "--json", json});
  INFO(r.err);
  REQUIRE(r.code == 0);
  std::ifstream in(json);
  nlohmann::json runs = nlohmann::json::parse(in)["runs"];
  for (auto& one : runs) one.erase("seconds");
  return runs;
}
}  // namespace

TEST_CASE("convert --graph writes a graph file that node-classify trains on alike", "[apps]") {
  testing::TempDir tmp;
  const std::string data = write_two_cluster_dataset(tmp.path() / "tiny").string();
  const std::string out = tmp.file("tiny.h5");
  const Result r = run({"convert", "--graph", data, "--to", out});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.err.empty());
  CHECK(r.out == "wrote " + out + ": tiny, 12 nodes, 10 undirected edges, 4 features, 2 classes, 0 relations, split 4/2/6\n");
  const graph::NodeDataset d = graph::load_node_dataset_h5(out);
  CHECK(d.num_nodes == 12);
  CHECK(train_runs(out, tmp.file("h5.json")) == train_runs(data, tmp.file("folder.json")));
}

TEST_CASE("convert --features-layout dense writes row chunks that train as the CSR file does", "[apps]") {
  testing::TempDir tmp;
  const std::string data = write_two_cluster_dataset(tmp.path() / "tiny").string();
  const std::string out = tmp.file("dense.h5");
  const Result r = run({"convert", "--graph", data, "--to", out, "--features-layout", "dense", "--chunk-rows", "5",
                        "--compress-features"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  {
    const Hdf5File file = Hdf5File::open(out);
    CHECK(file.schema_version() == 2);
    CHECK(file.dataset_chunk_shape(graph::kDenseFeaturesPath) == Shape{5, 4});
    CHECK(file.dataset_compressed(graph::kDenseFeaturesPath));
  }
  CHECK(train_runs(out, tmp.file("dense.json")) == train_runs(data, tmp.file("folder.json")));
  const Result bad = run({"convert", "--graph", data, "--to", tmp.file("x.h5"), "--features-layout", "rows"});
  CHECK(bad.code == 2);
  CHECK(bad.err.find("--features-layout") != std::string::npos);
}

TEST_CASE("convert --triples reads several TSV files into one typed graph", "[apps]") {
  testing::TempDir tmp;
  testing::write_text_file(tmp.file("train.txt"), "a\tlikes\tb\nb\tknows\tc\n");
  testing::write_text_file(tmp.file("valid.txt"), "c\tlikes\ta\nd\tknows\ta\n");
  const std::string out = tmp.file("kg.h5");
  const Result r = run({"convert", "--triples", tmp.file("train.txt"), "--triples", tmp.file("valid.txt"), "--to", out});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("4 nodes, 4 directed edges, 0 features, 0 classes, 2 relations, split 0/0/0") != std::string::npos);
  const graph::NodeDataset d = graph::load_node_dataset_h5(out);
  CHECK(d.relation_names == std::vector<std::string>{"likes", "knows"});
  CHECK(d.node_names == std::vector<std::string>{"a", "b", "c", "d"});
  CHECK(d.edge_type == std::vector<int64_t>{0, 1, 0, 1});
}

TEST_CASE("convert reports bad input in one line and leaves no file behind", "[apps]") {
  testing::TempDir tmp;
  const std::string data = write_two_cluster_dataset(tmp.path() / "d").string();
  testing::write_text_file(tmp.file("bad.tsv"), "a\tb\n");
  testing::write_text_file(tmp.file("fake.h5"), "not hdf5\n");
  {  // an HDF5 file of another kind
    Hdf5File foreign = Hdf5File::create(tmp.file("foreign.h5"), "attend.checkpoint", 1);
  }
  const std::string out = tmp.file("out.h5");
  const std::vector<std::string> before = tmp.entries();
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{"convert", "--to", out}, "give --graph, --triples or --msa"},
      {{"convert", "--graph", data}, "--to"},
      {{"convert", "--graph", tmp.file("missing"), "--to", out}, "no such file or folder"},
      {{"convert", "--graph", data, "--to", tmp.file("no/such/dir/out.h5")}, "no/such/dir"},
      {{"convert", "--graph", data, "--to", tmp.path().string()}, tmp.path().string()},
      {{"convert", "--graph", data, "--triples", tmp.file("bad.tsv"), "--to", out}, "not both"},
      {{"convert", "--triples", tmp.file("bad.tsv"), "--to", out}, "bad.tsv:1"},
      {{"convert", "--graph", tmp.file("fake.h5"), "--to", out}, "not an HDF5 file"},
      {{"convert", "--graph", tmp.file("foreign.h5"), "--to", out}, "attend.graph"},
      {{"node-classify", "train", "--data", tmp.file("foreign.h5")}, "attend.graph"},
  };
  for (const auto& [args, expected] : bad) {
    const Result r = run(args);
    INFO(args[1] << ' ' << args[2] << " -> " << r.err);
    CHECK(r.code == 2);
    CHECK(lines(r.err) == 1);
    CHECK(r.err.find(expected) != std::string::npos);
    CHECK(tmp.entries() == before);
  }
}
