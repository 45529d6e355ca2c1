// Issue #18, the reading side: hostile inputs that crashed, hung, failed as internal errors or
// were accepted in silence. Each is now one short line on stderr, exit 2, and no output file.
#include <catch2/catch.hpp>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "attend/bio/alignment_h5.hpp"
#include "attend/bio/alphabet.hpp"
#include "attend/core/hdf5_file.hpp"
#include "attend/core/random.hpp"
#include "run_attend.hpp"
#include "temp_dir.hpp"
#include "two_cluster_dataset.hpp"

using namespace attend;
namespace fs = std::filesystem;

using attend::testing::files_in;

namespace {

using Result = attend::testing::CliResult;

// `n` sequences over `length` random columns (PSICOV format).
std::string write_alignment(const fs::path& path, int n, int length) {
  Rng rng(5);
  std::ofstream f(path);
  for (int s = 0; s < n; ++s) {
    std::string row;
    for (int i = 0; i < length; ++i) row += bio::kAminoAcids[rng.below(20)];
    f << row << '\n';
  }
  return path.string();
}

std::string write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

// Runs `args` and checks the contract for bad input: exit 2, one line on stderr that is short
// whatever the input held, containing `expected`, nothing on stdout.
void check_refused(const std::vector<std::string>& args, const std::string& expected) {
  const Result r = attend::testing::run_attend(args);
  std::string shown;
  for (const std::string& a : args) shown += (a.size() > 60 ? a.substr(0, 60) + "..." : a) + " ";
  INFO(shown << "-> " << r.err.substr(0, 2000));
  CHECK(r.code == 2);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(r.err.size() < 600);
  CHECK(r.err.find(expected) != std::string::npos);
}

}  // namespace

TEST_CASE("hostile inputs: crashes (an empty alignment file, JSON nested 200,000 deep)", "[apps]") {
  attend::testing::TempDir tmp;
  {
    Hdf5File file = Hdf5File::create(tmp.file("empty.h5"), bio::kAlignmentSchema, bio::kAlignmentSchemaVersion);
    file.write_int32("/codes", {}, {0, 12});  // [0, 12]
    file.write_tensor("/weights", Tensor({0}));
    file.write_strings("/names", {});
    file.set_attr("/", "n_eff", 0.0);
    file.set_attr("/", "identity_threshold", 0.8);
    file.set_attr("/", "query_index", int64_t{0});
  }
  check_refused({"contacts", "predict", "--method", "potts", "--msa", tmp.file("empty.h5"), "--out", tmp.file("p")},
                "no sequences or no columns");

  const std::string data = attend::testing::write_two_cluster_dataset(tmp.path() / "d").string();
  const std::string deep = write_text(tmp.path() / "deep.json", std::string(200'000, '[') + std::string(200'000, ']'));
  check_refused({"node-classify", "train", "--data", data, "--model", deep}, "JSON nested deeper than 100 levels");
  check_refused({"bench", "--options", std::string(20'000, '[') + std::string(20'000, ']')}, "--options: JSON nested deeper");
  CHECK(files_in(tmp.path()) == std::set<std::string>{"empty.h5", "d", "deep.json"});
}

TEST_CASE("hostile inputs: endless lines end at the line bound ('/dev/zero', one 17 MiB line)", "[apps]") {
  attend::testing::TempDir tmp;
  const std::string line = write_text(tmp.path() / "line.aln", std::string(17u << 20, 'A') + "\n");
  check_refused({"contacts", "predict", "--msa", line, "--out", tmp.file("p")}, "a line longer than 16 MiB");
  if (fs::exists("/dev/zero")) {
    check_refused({"contacts", "predict", "--msa", "/dev/zero", "--out", tmp.file("p")}, "/dev/zero:1: a line longer");
    const std::string msa = write_alignment(tmp.path() / "a.aln", 20, 12);
    check_refused({"contacts", "predict", "--msa", msa, "--truth", "/dev/zero", "--out", tmp.file("p")}, "/dev/zero");
    fs::create_symlink("/dev/zero", tmp.path() / "labels.txt");
    check_refused({"convert", "--triples", tmp.file("labels.txt"), "--to", tmp.file("g.h5")}, "a line longer");
  }
  CHECK(files_in(tmp.path()).count("p.h5") == 0);
  CHECK(files_in(tmp.path()).count("g.h5") == 0);
}

TEST_CASE("hostile inputs: internal errors that are input errors", "[apps]") {
  attend::testing::TempDir tmp;
  const std::string data = attend::testing::write_two_cluster_dataset(tmp.path() / "d").string();
  // A JSON number beyond a double, in a model file and in --options.
  const std::string huge = write_text(tmp.path() / "huge.json", R"({"layers": [{"type": "gat", "heads": 1e999}]})");
  check_refused({"node-classify", "train", "--data", data, "--model", huge}, "a JSON number too large");
  check_refused({"bench", "--options", R"({"dropout": 1e999})"}, "a JSON number too large");
  // A symlink loop as --data, or as one of the dataset's files; a folder as --model.
  fs::create_symlink(tmp.path() / "loop_b", tmp.path() / "loop_a");
  fs::create_symlink(tmp.path() / "loop_a", tmp.path() / "loop_b");
  check_refused({"node-classify", "train", "--data", tmp.file("loop_a")}, "cannot look at this path");
  fs::remove(tmp.path() / "d" / "edges.txt");
  fs::create_symlink(tmp.path() / "d" / "edges.txt", tmp.path() / "d" / "edges.txt");
  check_refused({"node-classify", "train", "--data", data}, "edges.txt");
  const std::string data2 = attend::testing::write_two_cluster_dataset(tmp.path() / "d2").string();
  check_refused({"node-classify", "train", "--data", data2, "--model", tmp.path().string()}, "is a folder, expected a file");
  // Sizes no machine holds: a GAT layer of 10^6 heads x 10^6 channels, a Potts model over
  // 20000 columns (a 2 x 20000 alignment).
  check_refused({"bench", "--layer", "gat", "--nodes", "10", "--edges", "20", "--options",
                 R"({"heads": 1000000, "out_channels": 1000000})"},
                "this process may use");
  const std::string wide = write_alignment(tmp.path() / "wide.aln", 2, 20000);
  check_refused({"contacts", "predict", "--method", "potts", "--msa", wide, "--out", tmp.file("p")},
                "a Potts model of 20000 columns needs");
  CHECK(files_in(tmp.path()).count("p.h5") == 0);
}

TEST_CASE("hostile inputs: wrong input that was accepted (truncated gzip, empty triples)", "[apps]") {
  attend::testing::TempDir tmp;
  std::string text;
  for (int i = 0; i < 4000; ++i) text += "n" + std::to_string(i) + "\tlinks\tn" + std::to_string(i + 1) + "\n";
  const std::string packed = tmp.file("t.tsv.gz");
  gzFile gz = gzopen(packed.c_str(), "wb");
  gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
  gzclose(gz);
  std::ifstream in(packed, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string cut = write_text(tmp.path() / "cut.tsv.gz", bytes.substr(0, bytes.size() / 2));
  check_refused({"convert", "--triples", cut, "--to", tmp.file("g.h5")}, "truncated");
  const std::string empty = write_text(tmp.path() / "empty.tsv", "");
  check_refused({"convert", "--triples", empty, "--to", tmp.file("g.h5")}, "no triples");
  CHECK_FALSE(fs::exists(tmp.file("g.h5")));
}

TEST_CASE("hostile inputs: user text in a message is quoted short (a 5 MB layer name)", "[apps]") {
  check_refused({"bench", "--layer", std::string(5'000'000, 'g')}, "(5000000 bytes)");
  attend::testing::TempDir tmp;
  const std::string long_line = write_text(tmp.path() / "t.tsv", "a b c " + std::string(1'000'000, 'x') + "\n");
  check_refused({"convert", "--triples", long_line, "--to", tmp.file("g.h5")}, "bytes)");
}

TEST_CASE("hostile inputs: a 5 MB path or argument is shown short", "[apps]") {
  const std::string huge(5'000'000, 'p');
  check_refused({"node-classify", "train", "--data", huge}, "(5000000 bytes)");
  check_refused({"layers", huge}, "bytes)");
}
