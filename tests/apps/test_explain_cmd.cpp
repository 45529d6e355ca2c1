// `attend explain node|eval` run in process on a small generated BA-Shapes graph.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "attend/core/hdf5_file.hpp"
#include "attend/graph/explain/explanation_file.hpp"
#include "run_attend.hpp"
#include "temp_dir.hpp"

using namespace attend;

namespace {
using Result = attend::testing::CliResult;
Result run(std::vector<std::string> args) { return attend::testing::run_attend(std::move(args)); }

int64_t lines(const std::string& text) { return std::count(text.begin(), text.end(), '\n'); }

// A BA-Shapes graph with a briefly trained GAT and GCN (accuracy does not matter here).
struct Trained {
  testing::TempDir tmp;
  std::string data, gat, gcn;
  Trained() : data(tmp.file("shapes")), gat(tmp.file("gat.h5")), gcn(tmp.file("gcn.h5")) {
    REQUIRE(run({"generate", "ba-shapes", "--seed", "2", "--out", data, "--quiet"}).code == 0);
    REQUIRE(run({"node-classify", "train", "--data", data, "--model", "gat", "--epochs", "3", "--save", gat, "--quiet"}).code == 0);
    REQUIRE(run({"node-classify", "train", "--data", data, "--model", "ba-shapes", "--epochs", "3", "--save", gcn, "--quiet"})
                .code == 0);
  }
};
}  // namespace

TEST_CASE("explain node writes the explanation files, and explain eval scores them", "[apps]") {
  Trained t;
  const std::string ig = t.tmp.file("ig"), att = t.tmp.file("att"), deg = t.tmp.file("deg");
  const Result a = run({"explain", "node", "--data", t.data, "--checkpoint", t.gat, "--nodes", "300,310", "--method",
                        "integrated-gradients", "--steps", "20", "--out", ig, "--ground-truth", t.data, "--json",
                        t.tmp.file("ig.json"), "--quiet"});
  INFO(a.err);
  REQUIRE(a.code == 0);
  CHECK(a.out.find("completeness gap") != std::string::npos);
  for (const char* suffix : {".h5", ".edges.tsv", ".features.tsv", ".node300.svg", ".node310.svg"}) {
    CHECK(std::filesystem::is_regular_file(ig + suffix));
  }
  CHECK(testing::read_text_file(ig + ".features.tsv") == "node\tfeature\tscore\n" +
                                                              testing::read_text_file(ig + ".features.tsv").substr(19));
  CHECK(lines(testing::read_text_file(ig + ".features.tsv")) == 3);  // header, two nodes x one feature
  const graph::ExplanationSet set = graph::load_explanations(ig + ".h5");
  REQUIRE(set.explanations.size() == 2);
  CHECK(set.explanations[0].node == 300);
  CHECK(set.steps == 20);
  CHECK(set.rule == "midpoint");
  CHECK(std::isfinite(set.explanations[0].feature_completeness_gap));
  const std::string picture = testing::read_text_file(ig + ".node300.svg");
  CHECK(picture.find("<svg") == 0);
  CHECK(picture.find("stroke=\"black\"") != std::string::npos);  // node 300's house outlined
  const std::string again = t.tmp.file("again");
  REQUIRE(run({"explain", "node", "--data", t.data, "--checkpoint", t.gat, "--nodes", "300", "--method",
               "integrated-gradients", "--steps", "20", "--out", again, "--ground-truth", t.data, "--quiet"})
              .code == 0);
  CHECK(testing::read_text_file(again + ".node300.svg") == picture);  // the same picture again
  const std::string gauss = t.tmp.file("gauss");
  REQUIRE(run({"explain", "node", "--data", t.data, "--checkpoint", t.gat, "--nodes", "300", "--method",
               "integrated-gradients", "--steps", "20", "--rule", "gauss-legendre", "--out", gauss, "--quiet"})
              .code == 0);
  const graph::ExplanationSet gauss_set = graph::load_explanations(gauss + ".h5");
  CHECK(gauss_set.rule == "gauss-legendre");
  CHECK(gauss_set.explanations[0].edge_score != set.explanations[0].edge_score);  // other points, other sums
  {  // --max-gap: each node's steps refined (1, 3, 9, ...) until its gap is within the bound or at the cap
    const std::string adaptive = t.tmp.file("adaptive");
    const Result r = run({"explain", "node", "--data", t.data, "--checkpoint", t.gcn, "--nodes", "300,310", "--method",
                          "integrated-gradients", "--steps", "1", "--max-gap", "0.01", "--max-steps", "500", "--out",
                          adaptive, "--json", adaptive + ".json", "--quiet"});
    INFO(r.err);
    REQUIRE(r.code == 0);
    const nlohmann::json summary = nlohmann::json::parse(testing::read_text_file(adaptive + ".json"));
    CHECK(summary["max_gap"] == 0.01);
    for (const nlohmann::json& node : summary["nodes"]) {
      for (const char* kind : {"features", "edges"}) {
        const nlohmann::json& k = node[kind];
        const int steps = k["steps"];
        const double change = std::abs(node["log_probability"].get<double>() - k["baseline_log_probability"].get<double>());
        CAPTURE(kind, steps, k.dump());
        CHECK((steps == 1 || steps == 3 || steps == 9 || steps == 27 || steps == 81 || steps == 243));
        CHECK((std::abs(k["completeness_gap"].get<double>()) <= 0.01 * change || steps == 243));
      }
    }
  }

  const Result b = run({"explain", "node", "--data", t.data, "--checkpoint", t.gat, "--nodes", "300,310", "--method",
                        "attention", "--heads", "max", "--out", att, "--quiet"});
  INFO(b.err);
  REQUIRE(b.code == 0);
  const std::string edges = testing::read_text_file(att + ".edges.tsv");
  CHECK(edges.rfind("node\tsource\ttarget\tscore\n", 0) == 0);
  const graph::ExplanationSet attention = graph::load_explanations(att + ".h5");
  CHECK(lines(edges) == 1 + static_cast<int64_t>(attention.explanations[0].edge_id.size() + attention.explanations[1].edge_id.size()));
  CHECK(edges.find("\n300\t301\t300\t") != std::string::npos);  // a house edge into the explained node
  {  // each layer's weights [E, H] beside the rollout scores
    const Hdf5File file = Hdf5File::open(att + ".h5");
    const auto rows = static_cast<int64_t>(lines(edges) - 1);
    CHECK(file.read_tensor("/attention/layer0").dim(0) == rows);
    CHECK(file.read_tensor("/attention/layer1").dim(0) == rows);
  }

  const Result c = run({"explain", "node", "--data", t.data, "--checkpoint", t.gat, "--split", "test", "--method", "degree",
                        "--out", deg, "--ground-truth", t.data, "--quiet"});
  INFO(c.err);
  REQUIRE(c.code == 0);
  CHECK(graph::load_explanations(deg + ".h5").explanations.size() == 70);

  const std::string gnn = t.tmp.file("gnn");
  const Result g = run({"explain", "node", "--data", t.data, "--checkpoint", t.gcn, "--nodes", "300", "--method",
                        "gnnexplainer", "--seed", "3", "--out", gnn, "--quiet"});
  INFO(g.err);
  REQUIRE(g.code == 0);
  const graph::ExplanationSet learned = graph::load_explanations(gnn + ".h5");
  REQUIRE(learned.explanations.size() == 1);
  for (float m : learned.explanations[0].edge_score) CHECK((m >= 0.0f && m <= 1.0f));  // a mask

  const Result e = run({"explain", "eval", "--data", t.data, "--checkpoint", t.gat, "--explanations", ig + ".h5",
                        "--explanations", att + ".h5", "--ground-truth", t.data, "--json", t.tmp.file("eval.json")});
  INFO(e.err);
  REQUIRE(e.code == 0);
  CHECK(e.out.find("integrated-gradients   features") != std::string::npos);
  CHECK(e.out.find("attention              edges") != std::string::npos);
  CHECK(e.out.find("Kendall tau-b of edge ranks, integrated-gradients vs attention") != std::string::npos);
  CHECK(std::filesystem::is_regular_file(t.tmp.file("eval.json")));
}

TEST_CASE("explain refuses bad input in one line, exit 2, and leaves no file behind", "[apps]") {
  Trained t;
  testing::write_text_file(t.tmp.file("not.h5"), "not an HDF5 file\n");
  std::filesystem::copy_file(t.gat, t.tmp.file("y.node300.svg"));  // a checkpoint named like a picture
  const std::set<std::string> before = testing::files_in(t.tmp.path());
  const std::string out = t.tmp.file("x");
  const std::vector<std::string> node = {"explain", "node", "--data", t.data, "--checkpoint"};
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  auto with = [&](std::string checkpoint, std::vector<std::string> more) {
    std::vector<std::string> args = node;
    args.push_back(std::move(checkpoint));
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  const std::vector<Case> cases = {
      {with(t.gat, {"--nodes", "3", "--method", "shapley", "--out", out}), "--method"},
      {with(t.gat, {"--nodes", "9999", "--method", "saliency", "--out", out}), "no node '9999'"},
      {with(t.gat, {"--nodes", "3", "--split", "test", "--method", "saliency", "--out", out}), "[--nodes,--split]"},
      {with(t.gat, {"--method", "saliency", "--out", out}), "[--nodes,--split]"},
      {with(t.gat, {"--nodes", "3", "--method", "saliency", "--out", t.tmp.file("missing/x")}), "--out"},
      {with(t.gcn, {"--nodes", "3", "--method", "attention", "--out", out}), "exports none"},
      {with(t.gat, {"--nodes", "3", "--method", "saliency", "--class", "7", "--out", out}), "4 classes"},
      {with(t.gat, {"--nodes", "3", "--method", "saliency", "--steps", "0", "--out", out}), "--steps"},
      {with(t.gat, {"--nodes", "3", "--method", "integrated-gradients", "--rule", "simpson", "--out", out}), "--rule"},
      {with(t.gat, {"--nodes", "3", "--method", "integrated-gradients", "--max-gap", "2", "--out", out}), "--max-gap"},
      // The pictures PREFIX.node<ID>.svg are outputs too: no other output or input may be one.
      {with(t.gat, {"--nodes", "300", "--method", "degree", "--out", out, "--json", out + ".node300.svg"}),
       "--out writes " + out + ".node*.svg too"},
      {with(t.tmp.file("y.node300.svg"), {"--nodes", "300", "--method", "degree", "--out", t.tmp.file("y")}),
       "it is the input --checkpoint"},
      {{"explain", "eval", "--data", t.data, "--checkpoint", t.gat, "--explanations", t.tmp.file("not.h5")}, "not.h5"},
  };
  for (const Case& c : cases) {
    const Result r = run(c.args);
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK(r.err.find(c.message) != std::string::npos);
    CHECK(lines(r.err) == 1);
  }
  CHECK(testing::files_in(t.tmp.path()) == before);
  const Result help = run({"explain", "node", "--help"});
  CHECK(help.code == 0);
  CHECK(help.out.find("integrated-gradients") != std::string::npos);
}
