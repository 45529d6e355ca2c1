// The data users already have, from the command line: convert each layout to the graph file,
// make a split, train graph_transformer with edge features, and the tables and picture that
// train and predict write (headers pandas reads, the per-epoch history, the curves).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "attend/graph/graph_store.hpp"
#include "run_attend.hpp"
#include "temp_dir.hpp"
#include "two_cluster_dataset.hpp"

using namespace attend;
namespace fs = std::filesystem;

namespace {
using Result = attend::testing::CliResult;
const std::string kFixtures = std::string(ATTEND_TEST_DATA_DIR) + "/formats";

Result run(std::vector<std::string> args) { return attend::testing::run_attend(std::move(args)); }

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}
}  // namespace

TEST_CASE("convert reads every new layout into the graph file", "[apps]") {
  testing::TempDir tmp;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"ring.npz", "ring, 6 nodes, 12 undirected edges, 3 features, 3 classes, 0 relations, split 3/1/2, 2 edge features"},
      {"ring_npy", "ring_npy, 6 nodes, 12 undirected edges, 3 features, 3 classes, 0 relations, split 3/1/2, 2 edge features"},
      {"ogbn_ring", "ogbn_ring, 6 nodes, 6 undirected edges, 3 features, 3 classes, 0 relations, split 3/1/2, 2 edge features"},
      {"ring.edgelist", "ring, 6 nodes, 6 undirected edges, 0 features, 0 classes, 0 relations, split 0/0/0, 2 edge features"},
      {"ring.csv", "ring, 6 nodes, 6 undirected edges, 0 features, 0 classes, 0 relations, split 0/0/0, 2 edge features"}};
  for (const auto& [name, summary] : cases) {
    INFO(name);
    const std::string out = tmp.file(name + ".h5");
    const Result r = run({"convert", "--graph", kFixtures + "/" + name, "--to", out});
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK(r.err.empty());
    CHECK(r.out == "wrote " + out + ": " + summary + "\n");
    CHECK(graph::load_node_dataset_h5(out).edge_feature_dim == 2);
  }
  const Result bad = run({"convert", "--graph", kFixtures + "/make_fixtures.py", "--to", tmp.file("x.h5")});
  CHECK(bad.code == 2);
  CHECK(std::count(bad.err.begin(), bad.err.end(), '\n') == 1);
  CHECK_THAT(bad.err, Catch::Matchers::Contains("a NumPy archive (.npz) or an edge list"));
  CHECK_FALSE(fs::exists(tmp.file("x.h5")));
}

TEST_CASE("convert --split-fractions splits the labelled nodes at random, the same for a seed", "[apps]") {
  testing::TempDir tmp;
  const fs::path linqs = tmp.path() / "linqs";
  fs::create_directories(linqs);
  std::ofstream content(linqs / "t.content");
  for (int i = 0; i < 20; ++i) content << "p" << i << "\t" << i % 2 << "\t1\t" << (i % 2 ? "A" : "B") << "\n";
  content.close();
  std::ofstream(linqs / "t.cites") << "p0\tp1\np2\tp3\n";
  const auto split = [&](const std::string& seed, const std::string& out) {
    const Result r = run({"convert", "--graph", linqs.string(), "--split-fractions", "0.5,0.25", "--split-seed", seed,
                          "--to", tmp.file(out)});
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Matchers::EndsWith("split 10/5/5\n"));
    return graph::load_node_dataset_h5(tmp.file(out));
  };
  const graph::NodeDataset a = split("3", "a.h5"), b = split("3", "b.h5"), c = split("4", "c.h5");
  CHECK(a.train == b.train);
  CHECK(a.test == b.test);
  CHECK(a.train != c.train);
  const Result bad = run({"convert", "--graph", linqs.string(), "--split-fractions", "0.8,0.5", "--to", tmp.file("d.h5")});
  CHECK(bad.code == 2);
  CHECK_THAT(bad.err, Catch::Matchers::Contains("sum of at most 1"));
}

TEST_CASE("graph_transformer with edge_dim trains from the command line on a file's edge features", "[apps]") {
  testing::TempDir tmp;
  const std::string model = tmp.file("model.json");
  std::ofstream(model) << R"({"layers": [{"type": "graph_transformer", "heads": 2, "out_channels": 4, "edge_dim": 2},
                                         {"type": "graph_transformer", "heads": 1, "edge_dim": 2}], "epochs": 5})";
  const std::string h5 = tmp.file("ring.h5");
  REQUIRE(run({"convert", "--graph", kFixtures + "/ring.npz", "--to", h5}).code == 0);
  std::vector<nlohmann::json> histories;
  for (const std::string& data : {kFixtures + "/ring.npz", h5}) {
    INFO(data);
    const std::string json = tmp.file("r.json"), ckpt = tmp.file("m.h5");
    const Result r = run({"node-classify", "train", "--data", data, "--model", model, "--quiet", "--save", ckpt, "--json", json});
    INFO(r.err);
    REQUIRE(r.code == 0);
    std::ifstream in(json);
    histories.push_back(nlohmann::json::parse(in)["runs"][0]["history"]);
    const Result p = run({"node-classify", "predict", "--data", data, "--checkpoint", ckpt, "--out", tmp.file("p.tsv")});
    INFO(p.err);
    CHECK(p.code == 0);
  }
  CHECK(histories[0].size() == 5);
  CHECK(histories[0] == histories[1]);  // the archive and its graph file train alike, bit for bit

  // Without edge features the model is refused, naming edge_dim.
  const std::string plain = testing::write_two_cluster_dataset(tmp.path() / "tiny").string();
  const Result r = run({"node-classify", "train", "--data", plain, "--model", model, "--quiet"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Matchers::Contains("edge_dim"));
}

TEST_CASE("train --json carries the per-epoch history and --plot draws it", "[apps]") {
  testing::TempDir tmp;
  const std::string data = testing::write_two_cluster_dataset(tmp.path() / "tiny").string();
  const std::string json = tmp.file("r.json"), plot = tmp.file("curves.png");
  const Result r = run({"node-classify", "train", "--data", data, "--epochs", "7", "--patience", "0", "--runs", "2",
                        "--quiet", "--json", json, "--plot", plot});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Matchers::Contains("training curves drawn in " + plot));
  std::ifstream in(json);
  const nlohmann::json runs = nlohmann::json::parse(in)["runs"];
  for (const nlohmann::json& run : runs) {
    const nlohmann::json& history = run["history"];
    REQUIRE(history.size() == 7);
    for (std::size_t e = 0; e < history.size(); ++e) {
      CHECK(history[e]["epoch"] == e + 1);
      for (const char* key : {"train_loss", "train_acc", "val_loss", "val_acc"}) CHECK(history[e][key].is_number());
      CHECK(history[e]["train_acc"].get<double>() >= 0.0);
      CHECK(history[e]["val_acc"].get<double>() <= 1.0);
    }
    // The last epoch is the kept model (patience 0): its validation accuracy is the run's.
    CHECK(history.back()["val_acc"].get<double>() == run["val_acc"].get<double>());
  }
  std::ifstream png(plot, std::ios::binary);
  std::string head(8, '\0');
  png.read(head.data(), 8);
  CHECK(head == "\x89PNG\r\n\x1a\n");
  const Result bad = run({"node-classify", "train", "--data", data, "--epochs", "2", "--quiet", "--plot", tmp.path().string()});
  CHECK(bad.code == 2);
}

TEST_CASE("predict writes tables with headers: TSV or CSV, and attention as a table", "[apps]") {
  testing::TempDir tmp;
  const fs::path linqs = tmp.path() / "linqs";
  fs::create_directories(linqs);
  std::ofstream content(linqs / "t.content");
  for (int i = 0; i < 8; ++i) content << "p" << i << (i == 3 ? ",x" : "") << "\t" << i % 2 << "\t1\t" << (i % 2 ? "A" : "B") << "\n";
  content.close();
  std::ofstream(linqs / "t.cites") << "p0\tp1\np2\tp1\np4\tp5\n";
  std::ofstream(linqs / "split_train.txt") << "p0\np1\np2\n";
  std::ofstream(linqs / "split_test.txt") << "p4\np5\n";
  const std::string ckpt = tmp.file("m.h5");
  Result r = run({"node-classify", "train", "--data", linqs.string(), "--epochs", "3", "--quiet", "--save", ckpt});
  INFO(r.err);
  REQUIRE(r.code == 0);
  r = run({"node-classify", "predict", "--data", linqs.string(), "--checkpoint", ckpt, "--out", tmp.file("p.csv"),
           "--export-attention", tmp.file("a.tsv")});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const std::vector<std::string> predictions = lines_of(tmp.file("p.csv"));
  REQUIRE(predictions.size() == 9);
  CHECK(predictions[0] == "node,label,probability");
  CHECK(predictions[4].rfind("\"p3,x\",", 0) == 0);  // a name with the separator is quoted
  const std::vector<std::string> attention = lines_of(tmp.file("a.tsv"));
  CHECK(attention[0] == "layer\thead\tsource\ttarget\trelation\tweight");
  // The gat preset: 8 heads over 3 pairs both ways plus 8 self-loops, then 1 head.
  CHECK(attention.size() == 1 + 8 * 14 + 1 * 14);
  CHECK(attention[1].rfind("0\t0\t", 0) == 0);
}

TEST_CASE("node-classify takes an edge list's --labels, --features and --split-fractions as convert does", "[apps]") {
  testing::TempDir tmp;
  const std::string edges = tmp.file("g.edgelist"), labels = tmp.file("labels.txt"), features = tmp.file("x.txt");
  {
    std::ofstream e(edges), l(labels), f(features);
    for (int c = 0; c < 2; ++c) {  // two cliques of 5 nodes, one edge between them
      for (int i = 0; i < 5; ++i) {
        for (int j = i + 1; j < 5; ++j) e << 5 * c + i << ' ' << 5 * c + j << '\n';
        l << 5 * c + i << (c == 0 ? " left\n" : " right\n");
        f << 5 * c + i << ' ' << 1 - c << ' ' << c << ' ' << 0.1 * i << '\n';
      }
    }
    e << "4 5\n";
  }
  const std::vector<std::string> additions = {"--labels", labels, "--features", features, "--split-fractions", "0.5,0.2",
                                              "--split-seed", "3"};
  const auto with_additions = [&](std::vector<std::string> args) {
    args.insert(args.end(), additions.begin(), additions.end());
    return run(args);
  };
  const std::string ckpt = tmp.file("m.h5"), converted = tmp.file("g.h5");
  const Result direct = with_additions({"node-classify", "train", "--data", edges, "--epochs", "3", "--quiet", "--save", ckpt});
  INFO(direct.err);
  REQUIRE(direct.code == 0);
  CHECK_THAT(direct.out, Catch::Matchers::Contains("10 nodes, 21 edges, 3 features, 2 classes; split 5/2/3"));
  REQUIRE(with_additions({"convert", "--graph", edges, "--to", converted, "--quiet"}).code == 0);
  const Result stored = run({"node-classify", "train", "--data", converted, "--epochs", "3", "--quiet", "--save", tmp.file("m2.h5")});
  REQUIRE(stored.code == 0);
  // The reports up to the save line, without the seconds a run took (they differ between runs).
  const auto without_save_line = [](const std::string& out) {
    return std::regex_replace(out.substr(0, out.find("model saved")), std::regex(R"(, [0-9.]+ s\))"), ")");
  };
  CHECK(without_save_line(direct.out) == without_save_line(stored.out));  // one library call, one dataset

  const Result evaluated = with_additions({"node-classify", "evaluate", "--data", edges, "--checkpoint", ckpt});
  INFO(evaluated.err);
  REQUIRE(evaluated.code == 0);
  CHECK_THAT(evaluated.out, Catch::Matchers::Contains("\nval "));
  const Result predicted = run({"node-classify", "predict", "--data", edges, "--checkpoint", ckpt, "--out", tmp.file("p.tsv"),
                                "--labels", labels, "--features", features});
  INFO(predicted.err);
  REQUIRE(predicted.code == 0);
  CHECK(lines_of(tmp.file("p.tsv")).size() == 11);
  // Without its features file the edge list has none: the model's 3 inputs are not there.
  const Result featureless = run({"node-classify", "predict", "--data", edges, "--checkpoint", ckpt, "--out", tmp.file("q.tsv")});
  CHECK(featureless.code == 2);
  CHECK_FALSE(fs::exists(tmp.file("q.tsv")));
  const Result out_of_core = run({"node-classify", "evaluate", "--data", converted, "--checkpoint", ckpt, "--labels", labels,
                                  "--features-out-of-core", "--inference", "layerwise"});
  CHECK(out_of_core.code == 2);
  CHECK_THAT(out_of_core.err, Catch::Matchers::Contains("--features-out-of-core reads the graph file as it is"));
}
