// `attend contacts predict|eval` and `attend convert --msa` run in process on tiny inputs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "attend/bio/alignment_h5.hpp"
#include "attend/bio/alphabet.hpp"
#include "attend/bio/contact_readers.hpp"
#include "attend/core/checkpoint.hpp"
#include "attend/core/random.hpp"
#include "cli.hpp"
#include "run_attend.hpp"
#include "scoped_threads.hpp"
#include "temp_dir.hpp"

using namespace attend;
namespace fs = std::filesystem;

using attend::testing::files_in;

namespace {
using Result = attend::testing::CliResult;

Result run(std::vector<std::string> args) { return attend::testing::run_attend(std::move(args)); }

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// 60 sequences over 12 columns (PSICOV format) in which columns 0 and 11 always agree.
fs::path write_alignment(const fs::path& path) {
  Rng rng(3);
  std::ofstream f(path);
  for (int n = 0; n < 60; ++n) {
    std::string s;
    for (int i = 0; i < 12; ++i) s += bio::kAminoAcids[rng.below(20)];
    s[11] = s[0];
    f << s << '\n';
  }
  return path;
}

// Truth over 12 positions: the pair (1, 12) in contact, a few others not.
fs::path write_truth(const fs::path& path, int length = 12) {
  std::ofstream f(path);
  f << "#L " << length << "\n1\t12\t5.0\t1\n1\t8\t12.0\t0\n2\t9\tNA\t0\n3\t10\t9.5\t0\n";
  return path;
}

// 30 x 30 scores that are 0 except the listed pairs (1-based, symmetric).
void write_matrix(const fs::path& path, const std::vector<std::tuple<int, int, double>>& pairs) {
  std::vector<double> m(30 * 30, 0.0);
  for (auto [i, j, s] : pairs) m[(i - 1) * 30 + (j - 1)] = m[(j - 1) * 30 + (i - 1)] = s;
  std::ofstream f(path);
  for (int i = 0; i < 30; ++i) {
    for (int j = 0; j < 30; ++j) f << (j ? "\t" : "") << m[i * 30 + j];
    f << '\n';
  }
}
}  // namespace

TEST_CASE("contacts predict writes the four files and the precision table", "[apps]") {
  attend::testing::TempDir tmp;
  const std::string msa = write_alignment(tmp.path() / "tiny.aln").string();
  const std::string truth = write_truth(tmp.path() / "truth.tsv").string();
  fs::create_directories(tmp.path() / "out");
  for (const std::string method : {"potts", "factored"}) {
    INFO(method);
    const fs::path prefix = tmp.path() / "out" / method;
    const fs::path json = tmp.path() / "out" / (method + ".json");
    const Result r = run({"contacts", "predict", "--msa", msa, "--method", method, "--out", prefix.string(), "--truth",
                          truth, "--json", json.string(), "--quiet", "--threads", "2"});
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK(r.err.empty());
    CHECK(r.out.find("long") != std::string::npos);
    const nlohmann::json j = read_json(json);
    CHECK(j["method"] == method);
    CHECK(j["L"] == 12);
    // Short range: 4 evaluable pairs, top L/5 = 2 of them; the coupled pair (1, 12) is the one
    // contact and scores best. L = 12 has no long-range pair.
    CHECK(j["precision"]["short"]["P@L/5"] == 0.5);
    CHECK(j["precision"]["long"]["P@L"] == 0.0);

    const Result e = run({"contacts", "eval", "--pred", prefix.string() + ".h5", "--truth", truth, "--json",
                          (tmp.path() / "eval.json").string()});
    REQUIRE(e.code == 0);
    CHECK(read_json(tmp.path() / "eval.json") == j["precision"]);
  }
  CHECK(files_in(tmp.path() / "out") ==
        std::set<std::string>{"potts.h5", "potts.mat", "potts.rr", "potts.png", "potts.json", "factored.h5",
                              "factored.mat", "factored.rr", "factored.png", "factored.json"});
}

TEST_CASE("contacts predict --value-states and --score-at-iterations (factored)", "[apps]") {
  attend::testing::TempDir tmp;
  const std::string msa = write_alignment(tmp.path() / "tiny.aln").string();
  const std::string truth = write_truth(tmp.path() / "truth.tsv").string();
  const auto predict = [&](const std::string& name, std::vector<std::string> extra) {
    std::vector<std::string> args = {"contacts", "predict", "--msa", msa, "--method", "factored", "--out",
                                     (tmp.path() / name).string(), "--json", (tmp.path() / (name + ".json")).string(),
                                     "--quiet", "--tolerance", "0", "--heads", "2"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run(args);
  };
  const Result r = predict("snap", {"--truth", truth, "--value-states", "20", "--max-iterations", "6",
                                    "--score-at-iterations", "2,4"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("after 2 iterations: long-range P@L/5") != std::string::npos);
  const nlohmann::json j = read_json(tmp.path() / "snap.json");
  CHECK(j["parameters"]["value_states"] == 20);
  REQUIRE(j["snapshots"].size() == 2);
  CHECK(j["snapshots"][1]["iteration"] == 4);
  // A snapshot is the precision of the fit stopped there.
  REQUIRE(predict("four", {"--truth", truth, "--value-states", "20", "--max-iterations", "4"}).code == 0);
  CHECK(read_json(tmp.path() / "four.json")["precision"] == j["snapshots"][1]["precision"]);
  REQUIRE(predict("default", {"--max-iterations", "2"}).code == 0);
  CHECK(read_json(tmp.path() / "default.json")["parameters"]["value_states"] == 20);
  REQUIRE(predict("gap", {"--max-iterations", "2", "--value-states", "21"}).code == 0);
  CHECK(read_json(tmp.path() / "gap.json")["parameters"]["value_states"] == 21);

  CHECK(predict("bad", {"--value-states", "19"}).code != 0);
  CHECK(predict("notruth", {"--score-at-iterations", "2"}).code != 0);
  CHECK(run({"contacts", "predict", "--msa", msa, "--out", (tmp.path() / "potts").string(), "--truth", truth,
             "--score-at-iterations", "2"}).code != 0);
}

TEST_CASE("contacts predict applies the gap filters and the convergence options", "[apps]") {
  attend::testing::TempDir tmp;
  const fs::path msa = write_alignment(tmp.path() / "gappy.aln");
  {
    // Four more sequences with 9 of 12 columns gapped, and column 5 gapped in all of them.
    std::ofstream f(msa, std::ios::app);
    for (int n = 0; n < 4; ++n) f << "ACD---------\n";
  }
  for (const std::string method : {"potts", "factored"}) {
    INFO(method);
    const fs::path json = tmp.path() / (method + ".json");
    const Result r = run({"contacts", "predict", "--msa", msa.string(), "--method", method, "--out",
                          (tmp.path() / method).string(), "--json", json.string(), "--quiet", "--tolerance", "0",
                          "--max-iterations", "3", "--max-sequence-gaps", "0.5", "--max-column-gaps", "0.9"});
    INFO(r.err);
    REQUIRE(r.code == 0);
    const nlohmann::json j = read_json(json);
    CHECK(j["num_sequences"] == 60);  // the gappy four are gone
    CHECK(j["iterations"] == 3);      // tolerance 0: no early stop
    CHECK(j["parameters"]["epsilon"] == 0.0);
    CHECK(j["parameters"]["max_sequence_gap_fraction"] == 0.5);
    CHECK(j["parameters"]["max_column_gap_fraction"] == 0.9);
    CHECK(j["parameters"]["num_columns"] == 12);
  }
  // Without the sequence filter the gappy rows stay; the column filter then drops the
  // columns gapped in 4 of 64 rows when the threshold is below 4 / 64.
  const fs::path json = tmp.path() / "columns.json";
  const Result r = run({"contacts", "predict", "--msa", msa.string(), "--out", (tmp.path() / "c").string(), "--json",
                        json.string(), "--quiet", "--max-column-gaps", "0.05"});
  REQUIRE(r.code == 0);
  CHECK(read_json(json)["num_sequences"] == 64);
  CHECK(read_json(json)["parameters"]["num_columns"] == 3);
  CHECK(run({"contacts", "predict", "--msa", msa.string(), "--out", (tmp.path() / "d").string(),
             "--max-column-gaps", "1.5"}).code != 0);
}

TEST_CASE("contacts eval prints the expected precision for a hand-made prediction", "[apps]") {
  attend::testing::TempDir tmp;
  // Truth: 7 long-range pairs (4 contacts), 2 short-range pairs (1 contact).
  {
    std::ofstream f(tmp.path() / "truth.tsv");
    f << "# hand-made\n#L 30\n";
    for (auto [i, j, c] : std::vector<std::tuple<int, int, int>>{
             {1, 25, 1}, {1, 26, 0}, {2, 27, 1}, {3, 28, 0}, {4, 29, 1}, {5, 30, 0}, {6, 30, 1}, {1, 7, 1}, {2, 8, 0}})
      f << i << '\t' << j << "\tNA\t" << c << '\n';
  }
  const fs::path mat = tmp.path() / "pred.mat";
  write_matrix(mat, {{1, 25, 0.9}, {1, 26, 0.8}, {2, 27, 0.7}, {3, 28, 0.6}, {4, 29, 0.5}, {5, 30, 0.4}, {6, 30, 0.3},
                     {1, 7, 0.1}, {2, 8, 0.2}});
  const fs::path json = tmp.path() / "eval.json";
  const Result r = run({"contacts", "eval", "--pred", mat.string(), "--truth", (tmp.path() / "truth.tsv").string(),
                        "--json", json.string()});
  INFO(r.err);
  REQUIRE(r.code == 0);
  // Long: top L/5 = 6 of the 7 candidates hold 3 contacts; L/2 = 15 and L = 30 take all 7 (4).
  CHECK(r.out.find("long     >=24        0.571  0.571  0.500") != std::string::npos);
  CHECK(r.out.find("short    6-11        0.500  0.500  0.500") != std::string::npos);
  const nlohmann::json j = read_json(json);
  CHECK(j["L"] == 30);
  CHECK(j["long"]["P@L/5"] == Approx(0.5));
  CHECK(j["long"]["P@L/2"] == Approx(4.0 / 7.0));
  CHECK(j["long"]["P@L"] == Approx(4.0 / 7.0));
  CHECK(j["medium"]["P@L"] == 0.0);
  CHECK(j["short"]["P@L/5"] == Approx(0.5));
  CHECK(j.size() == 4);
  for (const char* range : {"short", "medium", "long"}) CHECK(j[range].size() == 3);

  // The same scores as a CASP RR file.
  {
    std::ofstream f(tmp.path() / "pred.rr");
    f << "PFRMAT RR\nTARGET t\nMODEL 1\n" << std::string(30, 'A') << "\n";
    f << "1 25 0 8 0.9\n1 26 0 8 0.8\n2 27 0 8 0.7\n3 28 0 8 0.6\n4 29 0 8 0.5\n5 30 0 8 0.4\n6 30 0 8 0.3\n";
    f << "1 7 0 8 0.1\n2 8 0 8 0.2\nEND\n";
  }
  const Result rr = run({"contacts", "eval", "--pred", (tmp.path() / "pred.rr").string(), "--truth",
                         (tmp.path() / "truth.tsv").string(), "--json", json.string()});
  REQUIRE(rr.code == 0);
  CHECK(read_json(json) == j);
}

TEST_CASE("contacts eval takes the truth from a PDB chain", "[apps]") {
  attend::testing::TempDir tmp;
  // small.pdb chain A has 6 residues; a bare 6 x 6 matrix is read in the chain's numbering.
  const fs::path mat = tmp.path() / "p.mat";
  {
    std::ofstream f(mat);
    for (int i = 0; i < 6; ++i) f << "0 0 0 0 0 0\n";
  }
  const Result r = run({"contacts", "eval", "--pred", mat.string(), "--pdb", ATTEND_BIO_FIXTURES "/fixtures/small.pdb",
                        "--chain", "A"});
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(r.out.find("medium") != std::string::npos);
  CHECK(r.err.empty());

  // A prediction whose sequence matches 2 of the chain's 6 residues is scored with a warning;
  // one that matches none is refused.
  const fs::path weak = tmp.path() / "weak.rr", unrelated = tmp.path() / "unrelated.rr";
  std::ofstream(weak) << "PFRMAT RR\nAGTTTV\n1 6 0 8 0.9\nEND\n";
  std::ofstream(unrelated) << "PFRMAT RR\nPPPPPP\n1 6 0 8 0.9\nEND\n";
  const std::string pdb = ATTEND_BIO_FIXTURES "/fixtures/small.pdb";
  const Result w = run({"contacts", "eval", "--pred", weak.string(), "--pdb", pdb});
  INFO(w.err);
  CHECK(w.code == 0);
  CHECK(w.err.find("warning: " + pdb + ": only 2 of the structure's 6 residues match the query (6 positions)") !=
        std::string::npos);
  const Result u = run({"contacts", "eval", "--pred", unrelated.string(), "--pdb", pdb});
  CHECK(u.code == 2);
  CHECK(u.err.find("is it the structure of this protein?") != std::string::npos);
}

TEST_CASE("contacts and convert report bad input in one line", "[apps]") {
  attend::testing::TempDir tmp;
  const std::string msa = write_alignment(tmp.path() / "a.aln").string();
  const std::string truth = write_truth(tmp.path() / "t.tsv").string();
  const std::string wrong_length = write_truth(tmp.path() / "t20.tsv", 20).string();
  const std::string out = (tmp.path() / "p").string();
  const std::string broken = ATTEND_BIO_FIXTURES "/broken/aln/unequal_length.aln";
  for (const std::vector<std::string>& args : {
           std::vector<std::string>{"contacts", "predict", "--msa", "/nonexistent/a.aln", "--out", out},
           {"contacts", "predict", "--msa", broken, "--out", out},
           {"contacts", "predict", "--msa", msa, "--out", out, "--method", "bogus"},
           {"contacts", "predict", "--msa", msa, "--out", out, "--truth", wrong_length},
           {"contacts", "predict", "--msa", msa, "--out", (tmp.path() / "no" / "dir" / "p").string()},
           {"contacts", "predict", "--msa", msa},
           {"contacts", "eval", "--pred", "/nonexistent/p.h5", "--truth", truth},
           {"contacts", "eval", "--pred", msa},
           {"contacts", "eval", "--pred", msa, "--truth", truth, "--pdb", "x.pdb"},
           {"convert", "--to", (tmp.path() / "c.h5").string()},
           {"convert", "--msa", broken, "--to", (tmp.path() / "c.h5").string()},
       }) {
    const Result r = run(args);
    std::string shown;
    for (const std::string& a : args) shown += a + " ";
    INFO(shown << "-> " << r.err);
    CHECK(r.code == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
  CHECK(files_in(tmp.path()) == std::set<std::string>{"a.aln", "t.tsv", "t20.tsv"});
}

TEST_CASE("convert --msa stores the encoded alignment, weights and potts scores", "[apps]") {
  attend::testing::TempDir tmp;
  const std::string msa = write_alignment(tmp.path() / "a.aln").string();
  const std::string h5 = (tmp.path() / "features.h5").string();
  Result r = run({"convert", "--msa", msa, "--to", h5});
  INFO(r.err);
  REQUIRE(r.code == 0);
  bio::AlignmentFeatures f = bio::read_alignment_h5(h5);
  CHECK(f.alignment.num_sequences() == 60);
  CHECK(f.alignment.length == 12);
  CHECK(f.weights.size() == 60);
  CHECK(f.n_eff > 1.0);
  CHECK(f.scores.numel() == 0);
  r = run({"convert", "--msa", msa, "--to", h5, "--with-scores"});
  REQUIRE(r.code == 0);
  f = bio::read_alignment_h5(h5);
  REQUIRE(f.scores.shape() == (Shape{12, 12}));
  CHECK(f.scores_method == "potts");
  CHECK(files_in(tmp.path()) == std::set<std::string>{"a.aln", "features.h5"});
}

TEST_CASE("contacts train fits a model that predict --method evoformer uses", "[apps]") {
  const attend::testing::ScopedThreads restore(num_threads());  // the runs use --threads 1
  attend::testing::TempDir tmp;
  const std::string msa = write_alignment(tmp.path() / "a.aln").string();
  const std::string truth = write_truth(tmp.path() / "t.tsv").string();
  const std::string h5 = (tmp.path() / "a.h5").string();
  Result r = run({"--threads", "1", "convert", "--msa", msa, "--to", h5, "--with-scores", "--max-sequences", "20"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const bio::AlignmentFeatures f = bio::read_alignment_h5(h5);
  CHECK(f.alignment.num_sequences() == 20);
  CHECK(f.alignment.names[0] == "1");           // the query stays first
  CHECK(f.scores_parameters["num_sequences"] == 60);  // the fit saw every row
  { std::ofstream(tmp.path() / "list.txt") << "# one family\na.h5 t.tsv\n"; }
  const std::string model = (tmp.path() / "model.h5").string();
  r = run({"--threads", "1", "contacts", "train", "--families", (tmp.path() / "list.txt").string(), "--out", model,
           "--epochs", "2", "--crop", "8", "--msa-depth", "4", "--c-m", "4", "--c-z", "4", "--quiet", "--json",
           (tmp.path() / "train.json").string()});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(read_json(tmp.path() / "train.json")["epochs"] == 2);
  CHECK(r.out.find("untrained (the potts ranking): training long-range P@L/5") != std::string::npos);
  CHECK(read_json(tmp.path() / "train.json").contains("untrained_P@L/5"));
  r = run({"--threads", "1", "contacts", "predict", "--method", "evoformer", "--model", model, "--msa", h5, "--truth",
           truth, "--out", (tmp.path() / "evo").string(), "--quiet"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("potts scores stored in") != std::string::npos);
  std::string query;
  const Tensor p = bio::read_prediction((tmp.path() / "evo.h5").string(), &query);
  CHECK(p.shape() == (Shape{12, 12}));
  CHECK(query == f.alignment.sequence(0));

  // The neighbour-mean channels, AdamW and the loss's separation: the model remembers the
  // channels, prediction reads them.
  const std::string model2 = (tmp.path() / "model2.h5").string();
  r = run({"--threads", "1", "contacts", "train", "--families", (tmp.path() / "list.txt").string(), "--out", model2,
           "--epochs", "2", "--crop", "8", "--msa-depth", "4", "--c-m", "4", "--c-z", "4", "--quiet",
           "--neighbour-scores", "--weight-decay", "0.5", "--min-separation", "3"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto weights = r.out.find("potts_weight:");
  REQUIRE(weights != std::string::npos);
  std::istringstream line(r.out.substr(weights + 13, r.out.find('\n', weights) - weights - 13));
  CHECK(std::distance(std::istream_iterator<float>(line), std::istream_iterator<float>()) == 4);
  CHECK(load_checkpoint(model2).model["config"]["neighbour_scores"] == true);
  r = run({"--threads", "1", "contacts", "predict", "--method", "evoformer", "--model", model2, "--msa", h5, "--out",
           (tmp.path() / "evo2").string(), "--quiet"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(bio::read_prediction((tmp.path() / "evo2.h5").string()).shape() == (Shape{12, 12}));
}

TEST_CASE("contacts train reports a missing family file by list and line, writes nothing", "[apps]") {
  attend::testing::TempDir tmp;
  const std::string msa = write_alignment(tmp.path() / "a.aln").string();
  write_truth(tmp.path() / "t.tsv");
  { std::ofstream(tmp.path() / "list.txt") << "a.aln t.tsv\nmissing.h5 t.tsv\n"; }
  const std::string model = (tmp.path() / "model.h5").string();
  const std::string list = (tmp.path() / "list.txt").string();
  for (const std::vector<std::string>& args : {
           std::vector<std::string>{"contacts", "train", "--families", list, "--out", model},
           {"contacts", "train", "--families", (tmp.path() / "none.txt").string(), "--out", model},
           {"contacts", "train", "--families", msa + ":" + (tmp.path() / "t.tsv").string(), "--out", model, "--resume"},
           {"contacts", "train", "--families", list, "--out", (tmp.path() / "no" / "model.h5").string()},
           {"contacts", "predict", "--method", "evoformer", "--msa", msa, "--out", (tmp.path() / "p").string(),
            "--model", (tmp.path() / "none.h5").string()},
       }) {
    const Result r = run(args);
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
  const Result r = run({"contacts", "train", "--families", list, "--out", model});
  CHECK(r.err.find(list + ":2") != std::string::npos);
  CHECK(r.err.find("missing.h5") != std::string::npos);
  CHECK(files_in(tmp.path()) == std::set<std::string>{"a.aln", "t.tsv", "list.txt"});
}

TEST_CASE("contacts train refuses a model larger than the memory before it prints anything", "[apps]") {
  // Issue #18 (a gap left open): --blocks 2000000000 printed the family list, then refused.
  attend::testing::TempDir tmp;
  write_alignment(tmp.path() / "a.aln");
  write_truth(tmp.path() / "t.tsv");
  { std::ofstream(tmp.path() / "list.txt") << "a.aln t.tsv\n"; }
  const Result r = run({"contacts", "train", "--families", (tmp.path() / "list.txt").string(), "--out",
                        (tmp.path() / "model.h5").string(), "--blocks", "2000000000", "--c-m", "4", "--c-z", "4"});
  INFO(r.err);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("2000000000 evoformer blocks needs") != std::string::npos);
  CHECK(files_in(tmp.path()) == std::set<std::string>{"a.aln", "t.tsv", "list.txt"});
}

TEST_CASE("contacts predict --method evoformer uses the shipped model by default", "[apps]") {
  const attend::testing::ScopedThreads restore(num_threads());  // the runs use --threads 1
  attend::testing::TempDir tmp;
  const std::string msa = write_alignment(tmp.path() / "a.aln").string();
  const Result r = run({"--threads", "1", "contacts", "predict", "--method", "evoformer", "--msa", msa, "--out",
                        (tmp.path() / "p").string(), "--quiet", "--json", (tmp.path() / "p.json").string()});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const bio::ContactPrediction p = bio::read_contacts_h5((tmp.path() / "p.h5").string());
  CHECK(p.method == "evoformer");
  CHECK(p.parameters["model"].get<std::string>().find("models/contact_evoformer.h5") != std::string::npos);
  CHECK(p.scores.shape() == (Shape{12, 12}));
}

TEST_CASE("contacts predict --regularization and --lambda-single set the potts strengths", "[apps]") {
  attend::testing::TempDir tmp;
  const std::string msa = write_alignment(tmp.path() / "tiny.aln").string();
  const auto parameters = [&](std::vector<std::string> extra) {
    const fs::path json = tmp.path() / "p.json";
    std::vector<std::string> args{"contacts", "predict", "--msa", msa, "--out", (tmp.path() / "p").string(),
                                  "--json", json.string(), "--quiet", "--max-iterations", "2"};
    args.insert(args.end(), extra.begin(), extra.end());
    const Result r = run(args);
    INFO(r.err);
    REQUIRE(r.code == 0);
    return read_json(json);
  };
  const nlohmann::json plm = parameters({"--regularization", "plmdca"});
  const double n_eff = plm["n_eff"];
  const double lambda = n_eff > 500.0 ? 0.01 : 0.1 - 0.09 * n_eff / 500.0;
  CHECK(plm["parameters"]["regularization"] == "plmdca");
  CHECK(plm["parameters"]["lambda_pair"] == Approx(lambda * n_eff));
  CHECK(plm["parameters"]["lambda_single"] == Approx(lambda * n_eff));

  const nlohmann::json ccm = parameters({"--lambda-single", "0.5"});
  CHECK(ccm["parameters"]["regularization"] == "ccmpred");
  CHECK(ccm["parameters"]["lambda_single"] == 0.5);
  CHECK(ccm["parameters"]["lambda_pair"] == Approx(0.2 * 11));

  CHECK(run({"contacts", "predict", "--msa", msa, "--out", (tmp.path() / "x").string(), "--regularization", "gremlin"})
            .code != 0);
}
