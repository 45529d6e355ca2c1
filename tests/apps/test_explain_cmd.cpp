// `attend explain node|eval` run in process on a small generated BA-Shapes graph, and
// `attend explain contacts` on a tiny alignment.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "attend/bio/alphabet.hpp"
#include "attend/core/hdf5_file.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/random.hpp"
#include "attend/graph/explain/explanation_file.hpp"
#include "run_attend.hpp"
#include "scoped_threads.hpp"
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
// 40 sequences over 30 columns (PSICOV format) in which columns 1 and 28 (1-based) agree, and
// a truth with that pair in contact.
struct TinyFamily {
  testing::TempDir tmp;
  std::string msa, truth;
  TinyFamily() : msa(tmp.file("a.aln")), truth(tmp.file("t.tsv")) {
    Rng rng(3);
    std::ofstream f(msa);
    for (int n = 0; n < 40; ++n) {
      std::string s;
      for (int i = 0; i < 30; ++i) s += bio::kAminoAcids[rng.below(20)];
      s[27] = s[0];
      f << s << '\n';
    }
    testing::write_text_file(truth, "#L 30\n1\t28\t5.0\t1\n2\t29\t12.0\t0\n3\t30\t9.5\t0\n1\t8\t12.0\t0\n");
  }
};
}  // namespace

TEST_CASE("explain contacts --method factored scores every head and writes the h5 and the head table", "[apps]") {
  TinyFamily t;
  const std::string out = t.tmp.file("fa");
  const Result r = run({"explain", "contacts", "--msa", t.msa, "--method", "factored", "--heads", "3", "--max-iterations", "4",
                        "--truth", t.truth, "--out", out, "--json", t.tmp.file("fa.json"), "--quiet"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("best head: head ") != std::string::npos);
  CHECK(r.out.find("factored (all)") != std::string::npos);
  CHECK(testing::files_in(t.tmp.path()) == std::set<std::string>{"a.aln", "t.tsv", "fa.h5", "fa.heads.tsv", "fa.json"});
  const std::string table = testing::read_text_file(out + ".heads.tsv");
  CHECK(table.rfind("head\tname\ttop_i\ttop_j\ttop_score\tlong_P@L/5\tlong_P@L/2\tlong_P@L\tmedium_P@L/5\tshort_P@L/5\n", 0) == 0);
  CHECK(lines(table) == 5);  // header, three heads, the factored scores
  CHECK(table.find("\nall\tfactored\t") != std::string::npos);
  const Hdf5File file = Hdf5File::open(out + ".h5");
  CHECK(file.schema() == "attend.contact_explanation");
  CHECK(file.read_tensor("/heads/attention").shape() == (Shape{3, 30, 30}));
  CHECK(file.read_tensor("/heads/scores").shape() == (Shape{3, 30, 30}));
  CHECK(file.read_strings("/heads/name") == std::vector<std::string>{"head 0", "head 1", "head 2"});
  CHECK(file.read_tensor("/precision/long_top_l5").shape() == (Shape{4}));
  CHECK_FALSE(file.exists("/attribution"));
  std::ifstream json_file(t.tmp.file("fa.json"));
  const nlohmann::json json = nlohmann::json::parse(json_file);
  CHECK(json["heads"].size() == 3);
  CHECK(json["heads"][0]["precision"].contains("long_P@L/5"));
}

TEST_CASE("explain contacts --method evoformer attributes a contact to columns, sequences and residue pairs, the same for 1 and 2 threads", "[apps]") {
  TinyFamily t;
  const testing::ScopedThreads restore(num_threads());  // the runs use --threads
  auto explain = [&](const std::string& threads, const std::string& name) {
    const Result r = run({"--threads", threads, "explain", "contacts", "--msa", t.msa, "--method", "evoformer", "--pair", "28,1",
                          "--steps", "4", "--max-iterations", "5", "--truth", t.truth, "--out", t.tmp.file(name), "--quiet"});
    INFO(r.err);
    REQUIRE(r.code == 0);
    return r;
  };
  const Result one = explain("1", "e1");
  CHECK(one.out.find("integrated gradients of the contact 1-28") != std::string::npos);
  CHECK(one.out.find("completeness gap") != std::string::npos);
  CHECK(one.out.find("split of f(x) - f(0)") != std::string::npos);
  CHECK(one.out.find("the explained pair is number ") != std::string::npos);
  for (const char* suffix : {".h5", ".heads.tsv", ".columns.tsv", ".sequences.tsv", ".columns.svg", ".pairs.tsv", ".pairs.png"}) {
    CHECK(std::filesystem::is_regular_file(t.tmp.file(std::string("e1") + suffix)));
  }
  const std::string columns = testing::read_text_file(t.tmp.file("e1.columns.tsv"));
  CHECK(columns.rfind("column\tresidue\tscore\n1\t", 0) == 0);
  CHECK(lines(columns) == 31);
  CHECK(testing::read_text_file(t.tmp.file("e1.sequences.tsv")).rfind("sequence\tname\tscore\n1\t1\t", 0) == 0);
  const std::string picture = testing::read_text_file(t.tmp.file("e1.columns.svg"));
  CHECK(picture.rfind("<svg", 0) == 0);
  CHECK(picture.find("contact 1-28") != std::string::npos);
  const std::string pairs = testing::read_text_file(t.tmp.file("e1.pairs.tsv"));
  CHECK(pairs.rfind("i\tj\tscore\n1\t1\t", 0) == 0);
  CHECK(lines(pairs) == 1 + 30 * 31 / 2);  // header, every pair i <= j
  CHECK(testing::read_text_file(t.tmp.file("e1.pairs.png")).rfind("\x89PNG", 0) == 0);
  const Hdf5File file = Hdf5File::open(t.tmp.file("e1.h5"));
  CHECK(file.read_int64("/attribution/pair") == std::vector<int64_t>{0, 27});
  CHECK(file.read_tensor("/attribution/per_column").shape() == (Shape{30}));
  CHECK(file.read_strings("/heads/name").front() == "block 0 head 0");
  CHECK(file.get_attr_string("/attribution", "rule") == "midpoint");
  const Tensor pair_features = file.read_tensor("/attribution/pair_features");
  CHECK(pair_features.dim(0) == 30);
  CHECK(pair_features.dim(1) == 30);
  const Tensor pair_map = file.read_tensor("/attribution/pair_map");
  REQUIRE(pair_map.shape() == (Shape{30, 30}));
  double map_total = 0.0;
  for (int64_t e = 0; e < pair_map.numel(); ++e) map_total += pair_map[e];
  CHECK(map_total == Approx(file.get_attr_double("/attribution", "pair_total")).margin(1e-4));

  explain("2", "e2");
  for (const char* suffix : {".heads.tsv", ".columns.tsv", ".sequences.tsv", ".columns.svg", ".pairs.tsv", ".pairs.png"}) {
    CHECK(testing::read_text_file(t.tmp.file(std::string("e2") + suffix)) == testing::read_text_file(t.tmp.file(std::string("e1") + suffix)));
  }

  // --steps 0: the heads only, the same table.
  const Result heads = run({"explain", "contacts", "--msa", t.msa, "--method", "evoformer", "--steps", "0", "--max-iterations",
                            "5", "--truth", t.truth, "--out", t.tmp.file("h"), "--quiet"});
  INFO(heads.err);
  REQUIRE(heads.code == 0);
  CHECK(heads.out.find("integrated gradients") == std::string::npos);
  CHECK(testing::read_text_file(t.tmp.file("h.heads.tsv")) == testing::read_text_file(t.tmp.file("e1.heads.tsv")));
  CHECK_FALSE(std::filesystem::exists(t.tmp.file("h.columns.svg")));
  CHECK_FALSE(std::filesystem::exists(t.tmp.file("h.pairs.tsv")));
  CHECK_FALSE(Hdf5File::open(t.tmp.file("h.h5")).exists("/attribution"));
}

TEST_CASE("explain contacts refuses bad input in one line, exit 2, and leaves no file behind", "[apps]") {
  TinyFamily t;
  const std::set<std::string> before = testing::files_in(t.tmp.path());
  const std::string out = t.tmp.file("x");
  const std::vector<std::string> evo = {"explain", "contacts", "--msa", t.msa, "--method", "evoformer", "--steps", "2",
                                        "--max-iterations", "2", "--out", out};
  auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> args = evo;
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {with({"--pair", "1,31"}), "1..30"},
      {with({"--pair", "0,5"}), "1..30"},
      {with({"--pair", "4,4"}), "two different columns"},
      {with({"--pair", "1;2"}), "expected two 1-based columns"},
      {with({"--pair", "1,2x"}), "expected two 1-based columns"},
      {with({"--rule", "simpson"}), "--rule"},
      {with({"--max-gap", "2"}), "--max-gap"},
      {{"explain", "contacts", "--msa", t.msa, "--method", "evoformer", "--steps", "0", "--pair", "1,9", "--out", out},
       "--steps >= 1"},
      {{"explain", "contacts", "--msa", t.msa, "--method", "factored", "--pair", "1,9", "--out", out}, "--method evoformer"},
      {{"explain", "contacts", "--msa", t.msa, "--method", "potts", "--out", out}, "--method"},
      {{"explain", "contacts", "--msa", t.tmp.file("none.aln"), "--method", "factored", "--out", out}, "none.aln"},
      {with({"--model", t.truth}), "t.tsv"},
      {with({"--truth", t.tmp.file("none.tsv")}), "none.tsv"},
      {with({"--json", out + ".columns.svg"}), "--out"},
      {with({"--json", out + ".pairs.png"}), "--out"},
  };
  for (const auto& [args, message] : cases) {
    const Result r = run(args);
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK(r.err.find(message) != std::string::npos);
    CHECK(lines(r.err) == 1);
  }
  CHECK(testing::files_in(t.tmp.path()) == before);
  const Result help = run({"explain", "contacts", "--help"});
  CHECK(help.code == 0);
  CHECK(help.out.find("--pair") != std::string::npos);
}

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

  {  // occlusion, one directed edge or the undirected edge at a time: the file says which
    const std::string occluded = t.tmp.file("occluded"), undirected = t.tmp.file("undirected");
    REQUIRE(run({"explain", "node", "--data", t.data, "--checkpoint", t.gcn, "--nodes", "300,310", "--method", "occlusion",
                 "--out", occluded, "--quiet", "--no-pictures"})
                .code == 0);
    REQUIRE(run({"explain", "node", "--data", t.data, "--checkpoint", t.gcn, "--nodes", "300,310", "--method", "occlusion",
                 "--symmetric", "--out", undirected, "--json", undirected + ".json", "--quiet", "--no-pictures"})
                .code == 0);
    const graph::ExplanationSet one = graph::load_explanations(occluded + ".h5");
    const graph::ExplanationSet both = graph::load_explanations(undirected + ".h5");
    CHECK(one.method == "occlusion");
    CHECK_FALSE(one.symmetric);
    CHECK(both.symmetric);
    CHECK(nlohmann::json::parse(testing::read_text_file(undirected + ".json"))["symmetric"] == true);
    CHECK(one.explanations[0].edge_id == both.explanations[0].edge_id);
    CHECK(one.explanations[0].feature_score.size() == 1);
    CHECK(one.explanations[0].edge_score != both.explanations[0].edge_score);
  }

  {  // shapley: the file holds the permutation count and each node's efficiency gap
    const std::string shapley = t.tmp.file("shapley");
    const Result r = run({"explain", "node", "--data", t.data, "--checkpoint", t.gcn, "--nodes", "300,310", "--method",
                          "shapley", "--samples", "4", "--symmetric", "--seed", "2", "--out", shapley, "--quiet",
                          "--no-pictures"});
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK(r.out.find("largest efficiency gap") != std::string::npos);
    const graph::ExplanationSet set = graph::load_explanations(shapley + ".h5");
    CHECK(set.method == "shapley");
    CHECK(set.samples == 4);
    CHECK(set.symmetric);
    for (const graph::NodeExplanation& x : set.explanations) {
      CHECK(std::abs(x.edge_completeness_gap) < 1e-4);
      CHECK(std::abs(x.feature_completeness_gap) < 1e-4);
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
                        "gnnexplainer", "--seed", "3", "--out", gnn, "--quiet", "--no-pictures"});
  INFO(g.err);
  REQUIRE(g.code == 0);
  CHECK(std::filesystem::is_regular_file(gnn + ".edges.tsv"));
  CHECK_FALSE(std::filesystem::exists(gnn + ".node300.svg"));  // --no-pictures
  const graph::ExplanationSet learned = graph::load_explanations(gnn + ".h5");
  REQUIRE(learned.explanations.size() == 1);
  for (float m : learned.explanations[0].edge_score) CHECK((m >= 0.0f && m <= 1.0f));  // a mask
  // --initial-mask (and the pgexplainer options given) reach gnnexplainer: one step of lr 1e-7
  // leaves every mask at its start.
  const std::string start = t.tmp.file("start");
  const Result s = run({"explain", "node", "--data", t.data, "--checkpoint", t.gcn, "--nodes", "300", "--method",
                        "gnnexplainer", "--initial-mask", "0.9", "--epochs", "1", "--lr", "1e-7", "--out", start, "--quiet",
                        "--no-pictures", "--json", t.tmp.file("start.json")});
  INFO(s.err);
  REQUIRE(s.code == 0);
  const graph::ExplanationSet started_set = graph::load_explanations(start + ".h5");
  int64_t started = 0;
  for (float m : started_set.explanations[0].edge_score) {
    if (m == 0.0f) continue;  // no gradient in the first epoch: outside the hard mask
    CHECK(m == Approx(0.9).margin(1e-5));
    ++started;
  }
  CHECK(started > 0);
  const nlohmann::json start_json = nlohmann::json::parse(testing::read_text_file(t.tmp.file("start.json")));
  CHECK(start_json["gnnexplainer"]["initial_mask"] == 0.9);
  CHECK(start_json["gnnexplainer"]["epochs"] == 1);
  CHECK(start_json["gnnexplainer"]["edge_entropy"] == 1.0);  // not given: PyG's default

  // pgexplainer: trained on the training split, then one mask per explained node.
  const std::string pg = t.tmp.file("pg");
  const Result p = run({"explain", "node", "--data", t.data, "--checkpoint", t.gcn, "--nodes", "300,301", "--method",
                        "pgexplainer", "--epochs", "2", "--seed", "3", "--out", pg, "--quiet", "--no-pictures", "--json",
                        t.tmp.file("pg.json")});
  INFO(p.err);
  REQUIRE(p.code == 0);
  const graph::ExplanationSet pg_set = graph::load_explanations(pg + ".h5");
  REQUIRE(pg_set.explanations.size() == 2);
  for (const graph::NodeExplanation& x : pg_set.explanations) {
    CHECK(!x.edge_score.empty());
    for (float s : x.edge_score) CHECK((std::isfinite(s) && s >= 0.0f));  // -log(1 - mask)
  }
  const nlohmann::json pg_json = nlohmann::json::parse(testing::read_text_file(t.tmp.file("pg.json")));
  CHECK(pg_json["pgexplainer"]["epochs"] == 2);
  CHECK(pg_json["pgexplainer"]["training_nodes"] == "train");
  CHECK(pg_json["pgexplainer"]["last_epoch_loss"].is_number());

  const Result e = run({"explain", "eval", "--data", t.data, "--checkpoint", t.gat, "--explanations", ig + ".h5",
                        "--explanations", att + ".h5", "--ground-truth", t.data, "--json", t.tmp.file("eval.json")});
  INFO(e.err);
  REQUIRE(e.code == 0);
  CHECK(e.out.find("integrated-gradients   features") != std::string::npos);
  CHECK(e.out.find("attention              edges") != std::string::npos);
  CHECK(e.out.find("Kendall tau-b of edge ranks, integrated-gradients vs attention") != std::string::npos);
  CHECK(e.out.find("AUC protocol explained-edges") != std::string::npos);
  CHECK(std::filesystem::is_regular_file(t.tmp.file("eval.json")));

  // The papers' protocol: every undirected edge within 2 hops of each node, once.
  const Result k = run({"explain", "eval", "--data", t.data, "--checkpoint", t.gat, "--explanations", att + ".h5",
                        "--ground-truth", t.data, "--auc-protocol", "khop-undirected", "--auc-hops", "2", "--json",
                        t.tmp.file("khop.json")});
  INFO(k.err);
  REQUIRE(k.code == 0);
  CHECK(k.out.find("AUC protocol khop-undirected, 2 hops") != std::string::npos);
  const nlohmann::json khop = nlohmann::json::parse(testing::read_text_file(t.tmp.file("khop.json")));
  CHECK(khop["auc_protocol"] == "khop-undirected");
  CHECK(khop["auc_hops"] == 2);
  CHECK(khop["rows"][0]["auc"].is_number());
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
      {with(t.gat, {"--nodes", "3", "--method", "lime", "--out", out}), "--method"},
      {with(t.gat, {"--nodes", "9999", "--method", "saliency", "--out", out}), "no node '9999'"},
      {with(t.gat, {"--nodes", "3", "--split", "test", "--method", "saliency", "--out", out}), "[--nodes,--split]"},
      {with(t.gat, {"--method", "saliency", "--out", out}), "[--nodes,--split]"},
      {with(t.gat, {"--nodes", "3", "--method", "saliency", "--out", t.tmp.file("missing/x")}), "--out"},
      {with(t.gcn, {"--nodes", "3", "--method", "attention", "--out", out}), "exports none"},
      {with(t.gat, {"--nodes", "3", "--method", "saliency", "--class", "7", "--out", out}), "4 classes"},
      {with(t.gat, {"--nodes", "3", "--method", "saliency", "--steps", "0", "--out", out}), "--steps"},
      {with(t.gat, {"--nodes", "3", "--method", "integrated-gradients", "--rule", "simpson", "--out", out}), "--rule"},
      {with(t.gat, {"--nodes", "3", "--method", "integrated-gradients", "--max-gap", "2", "--out", out}), "--max-gap"},
      {with(t.gcn, {"--nodes", "3", "--method", "pgexplainer", "--epochs", "0", "--out", out}), "--epochs"},
      {with(t.gcn, {"--nodes", "3", "--method", "pgexplainer", "--lr", "-1", "--out", out}), "--lr"},
      {with(t.gcn, {"--nodes", "3", "--method", "pgexplainer", "--temperature-end", "0", "--out", out}), "--temperature-end"},
      {with(t.gcn, {"--nodes", "3", "--method", "pgexplainer", "--edge-size", "nan", "--out", out}), "--edge-size"},
      {with(t.gcn, {"--nodes", "3", "--method", "pgexplainer", "--train-on", "test", "--out", out}), "--train-on"},
      {with(t.gcn, {"--nodes", "3", "--method", "saliency", "--symmetric", "--out", out}), "--symmetric"},
      {with(t.gcn, {"--nodes", "3", "--method", "shapley", "--samples", "3", "--out", out}), "--samples"},
      {with(t.gcn, {"--nodes", "3", "--method", "shapley", "--samples", "0", "--out", out}), "--samples"},
      {with(t.gcn, {"--nodes", "3", "--method", "shapley", "--samples", "four", "--out", out}), "--samples"},
      {with(t.gcn, {"--nodes", "3", "--method", "occlusion", "--samples", "8", "--out", out}), "--samples"},
      {with(t.gcn, {"--nodes", "3", "--method", "gnnexplainer", "--initial-mask", "1", "--out", out}), "--initial-mask"},
      {with(t.gcn, {"--nodes", "3", "--method", "pgexplainer", "--entropy-margin", "0.5", "--out", out}), "--entropy-margin"},
      {with(t.gcn, {"--nodes", "3", "--method", "gnnexplainer", "--initial-mask", "-0.5", "--out", out}), "--initial-mask"},
      // The pictures PREFIX.node<ID>.svg are outputs too: no other output or input may be one.
      {with(t.gat, {"--nodes", "300", "--method", "degree", "--out", out, "--json", out + ".node300.svg"}),
       "--out writes " + out + ".node*.svg too"},
      {with(t.tmp.file("y.node300.svg"), {"--nodes", "300", "--method", "degree", "--out", t.tmp.file("y")}),
       "it is the input --checkpoint"},
      {{"explain", "eval", "--data", t.data, "--checkpoint", t.gat, "--explanations", t.tmp.file("not.h5")}, "not.h5"},
      {{"explain", "eval", "--data", t.data, "--checkpoint", t.gat, "--explanations", t.tmp.file("not.h5"), "--auc-protocol",
        "pooled"},
       "--auc-protocol"},
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
