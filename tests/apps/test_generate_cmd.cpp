// `attend generate BENCHMARK --seed S --out DIR` run in process.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "attend/graph/load_dataset.hpp"
#include "attend/graph/motif_ground_truth.hpp"
#include "run_attend.hpp"
#include "temp_dir.hpp"

using namespace attend;

namespace {
using Result = attend::testing::CliResult;
Result run(std::vector<std::string> args) { return attend::testing::run_attend(std::move(args)); }
}  // namespace

TEST_CASE("generate writes a dataset folder that node-classify trains on, and its ground truth", "[apps]") {
  testing::TempDir tmp;
  const std::string dir = tmp.file("shapes");
  const Result r = run({"generate", "ba-shapes", "--seed", "3", "--out", dir});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out == "wrote " + dir + ": ba-shapes, 700 nodes, 2105 undirected edges (480 in motifs), 1 feature, 4 classes, "
                                  "split 560/70/70\n");
  CHECK(r.err.find("generate ba-shapes (seed 3, recipe paper)") != std::string::npos);
  CHECK(graph::load_motif_ground_truth(dir, 700).num_edges() == 480);
  const Result train = run({"node-classify", "train", "--data", dir, "--model", "ba-shapes", "--epochs", "5", "--quiet"});
  INFO(train.err);
  CHECK(train.code == 0);
  CHECK(train.out.find("dataset shapes: 700 nodes") != std::string::npos);
}

TEST_CASE("generate gives the same files for a seed and others for another seed", "[apps]") {
  testing::TempDir tmp;
  auto files_of = [&](const std::string& seed, const std::string& name) {
    const Result r = run({"generate", "tree-grid", "--seed", seed, "--out", tmp.file(name), "--quiet"});
    REQUIRE(r.code == 0);
    CHECK(r.err.empty());
    std::string all;
    for (const char* f : {"edges.txt", "labels.txt", "split_train.txt", "motif_edges.txt", "motif_nodes.txt"}) {
      all += testing::read_text_file(tmp.file(name + "/" + f));
    }
    return all;
  };
  const std::string first = files_of("5", "a");
  CHECK(files_of("5", "b") == first);
  CHECK(files_of("6", "c") != first);
}

TEST_CASE("generate --recipe authors writes the authors' tree-cycles, the same for a seed", "[apps]") {
  testing::TempDir tmp;
  auto generate = [&](const std::string& seed, const std::string& name) {
    const Result r = run({"generate", "tree-cycles", "--recipe", "authors", "--seed", seed, "--out", tmp.file(name)});
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK(r.out.find(": tree-cycles, 871 nodes, ") != std::string::npos);
    CHECK(r.out.find(" undirected edges (360 in motifs), 1 feature, 2 classes, split 697/87/87\n") != std::string::npos);
    CHECK(r.err.find("generate tree-cycles (seed " + seed + ", recipe authors)") != std::string::npos);
    return testing::read_text_file(tmp.file(name + "/edges.txt")) + testing::read_text_file(tmp.file(name + "/motif_edges.txt"));
  };
  const std::string first = generate("1", "a");
  CHECK(generate("1", "b") == first);
  CHECK(generate("2", "c") != first);
  CHECK(graph::load_motif_ground_truth(tmp.file("a"), 871).num_edges() == 360);
}

TEST_CASE("generate large-graph writes a graph file that node-classify trains on", "[apps]") {
  testing::TempDir tmp;
  const std::string out = tmp.file("large.h5");
  const Result r = run({"generate", "large-graph", "--nodes", "400", "--edges", "1600", "--features", "6", "--classes",
                        "3", "--seed", "4", "--chunk-rows", "32", "--out", out});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out == "wrote " + out + ": 400 nodes, 1600 undirected edges, 6 dense features, 3 classes, split 32/8/360\n");
  CHECK(r.err.find("generate large-graph (seed 4)") != std::string::npos);
  CHECK(r.err.find("features 400/400") != std::string::npos);
  const graph::NodeDataset d = graph::load_node_dataset(out);
  CHECK(d.num_features() == 6);
  CHECK(run({"generate", "large-graph", "--nodes", "400", "--edges", "1600", "--out", out, "--quiet"}).code == 0);
  const Result train = run({"node-classify", "train", "--data", out, "--model", "ba-shapes", "--epochs", "3", "--quiet"});
  INFO(train.err);
  CHECK(train.code == 0);
  const Result out_of_core = run({"node-classify", "train", "--data", out, "--model", "ba-shapes", "--epochs", "2",
                                   "--fanouts", "5,5,5", "--batch-size", "8", "--inference", "sampled",
                                   "--features-out-of-core", "--feature-cache-mb", "0.01", "--quiet"});
  INFO(out_of_core.err);
  CHECK(out_of_core.code == 0);
  CHECK(out_of_core.out.find("400 nodes, 1600 edges, 100 features") != std::string::npos);
  const Result full = run({"node-classify", "train", "--data", out, "--model", "ba-shapes", "--epochs", "2",
                           "--features-out-of-core", "--quiet"});
  CHECK(full.code == 2);
  CHECK(full.err.find("--fanouts") != std::string::npos);
  CHECK(std::count(full.err.begin(), full.err.end(), '\n') == 1);
  const Result folder = run({"generate", "large-graph", "--out", tmp.file("folder")});
  CHECK(folder.code == 2);
  CHECK(folder.err.find("ending in .h5") != std::string::npos);
  CHECK(std::count(folder.err.begin(), folder.err.end(), '\n') == 1);
}

TEST_CASE("generate refuses bad input in one line, exit 2, and leaves no file behind", "[apps]") {
  testing::TempDir tmp;
  testing::write_text_file(tmp.file("taken"), "a file, not a folder\n");
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"generate", "ba-houses", "--out", tmp.file("x")}, "ba-houses not in {ba-shapes,ba-community,tree-cycles,tree-grid,large-graph}"},
      {{"generate", "ba-shapes", "--out", tmp.file("missing/x")}, "folder '" + tmp.file("missing") + "' does not exist"},
      {{"generate", "ba-shapes", "--out", tmp.file("taken")}, "exists and is not a folder"},
      {{"generate", "ba-shapes", "--out", tmp.file("x"), "--noise", "2"}, "--noise"},
      {{"generate", "tree-cycles", "--out", tmp.file("x"), "--recipe", "released"}, "released not in {paper,authors}"},
      {{"generate", "ba-shapes", "--out", tmp.file("x"), "--recipe", "authors"}, "ba-shapes has the paper recipe only"},
      {{"generate", "tree-grid", "--out", tmp.file("x"), "--recipe", "authors", "--noise", "0.1"}, "1 % of the edges"},
      {{"generate", "ba-shapes"}, "--out is required"},
  };
  for (const Case& c : cases) {
    const Result r = run(c.args);
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK(r.err.find(c.message) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
  CHECK(tmp.entries() == std::vector<std::string>{"taken"});
  const Result help = run({"generate", "--help"});
  CHECK(help.code == 0);
  CHECK(help.out.find("ba-shapes, ba-community, tree-cycles or tree-grid") != std::string::npos);
}
