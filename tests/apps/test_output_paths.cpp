// Every command's outputs (issue #18): a path that names an input, another output, a directory
// or a device is refused before any work; multi-file outputs appear together, also when two
// runs write the same --out at once; temporary files of killed writers do not stay.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "attend/bio/alphabet.hpp"
#include "attend/bio/contact_readers.hpp"
#include "attend/core/atomic_file.hpp"
#include "attend/core/random.hpp"
#include "attend/core/tensor.hpp"
#include "run_attend.hpp"
#include "temp_dir.hpp"
#include "two_cluster_dataset.hpp"

extern char** environ;

using namespace attend;
using attend::testing::read_text_file;
using attend::testing::TempDir;
namespace fs = std::filesystem;

using attend::testing::files_in;

namespace {

using Result = attend::testing::CliResult;

Result run(std::vector<std::string> args) { return attend::testing::run_attend(std::move(args)); }

// 40 random sequences over `length` columns (PSICOV format); column 0 and the last agree.
std::string write_alignment(const fs::path& path, int length, uint64_t seed) {
  Rng rng(seed);
  std::ofstream f(path);
  for (int n = 0; n < 40; ++n) {
    std::string s;
    for (int i = 0; i < length; ++i) s += bio::kAminoAcids[rng.below(20)];
    s.back() = s.front();
    f << s << '\n';
  }
  return path.string();
}

// Start the built `attend` with `args` (output to /dev/null); returns its process id.
pid_t start_attend(const std::vector<std::string>& args) {
  std::vector<std::string> strings = {ATTEND_BINARY};
  strings.insert(strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : strings) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  REQUIRE(spawned == 0);
  return pid;
}

int wait_exit_code(pid_t pid) {
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Whether the prediction files PREFIX.{h5,mat,rr,png} are the set that `reference` holds.
bool same_prediction_set(const std::string& prefix, const std::string& reference) {
  for (const char* text : {".mat", ".rr", ".png"}) {
    if (read_text_file(prefix + text) != read_text_file(reference + text)) return false;
  }
  return bitwise_equal(bio::read_prediction(prefix + ".h5"), bio::read_prediction(reference + ".h5"));
}

}  // namespace

TEST_CASE("an output that names an input, another output, a directory or a device is refused before any work",
          "[apps]") {
  TempDir tmp;
  const std::string aln = write_alignment(tmp.path() / "a.aln", 12, 1);
  const std::string data = attend::testing::write_two_cluster_dataset(tmp.path() / "graph").string();
  const std::string ckpt = tmp.file("ck.h5"), h5 = tmp.file("a.h5"), list = tmp.file("list.txt");
  const std::string out = tmp.file("out"), plugin = tmp.file("layer.so");
  for (const std::string& f : {ckpt, h5, list, out + ".rr", plugin}) std::ofstream(f) << "input\n";
  fs::create_directory(tmp.path() / "folder");
  REQUIRE(::mkfifo(tmp.file("fifo").c_str(), 0600) == 0);
  fs::create_symlink(aln, tmp.file("link.aln"));
  std::string data_file;  // a file the dataset folder holds
  for (const auto& entry : fs::directory_iterator(data))
    if (entry.is_regular_file()) data_file = entry.path().string();
  REQUIRE(!data_file.empty());
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"convert", "--msa", aln, "--to", aln}, "--to: cannot write " + aln + ": it is the input --msa"},
      {{"node-classify", "predict", "--data", data, "--checkpoint", ckpt, "--out", data_file},
       "it is a file of the input folder --data " + data},
      {{"node-classify", "train", "--data", data, "--json", tmp.file("graph/../graph/") + fs::path(data_file).filename().string()},
       "it is a file of the input folder --data"},
      {{"convert", "--msa", aln, "--to", tmp.file("link.aln")}, "it is the input --msa " + aln},
      {{"convert", "--msa", aln, "--to", tmp.file("graph/../a.aln")}, "it is the input --msa"},
      {{"convert", "--graph", data, "--to", data}, "it is a directory"},
      {{"node-classify", "predict", "--data", data, "--checkpoint", ckpt, "--out", ckpt}, "it is the input --checkpoint"},
      {{"node-classify", "predict", "--data", data, "--checkpoint", ckpt, "--out", out, "--export-attention", out},
       "--export-attention: cannot write " + out + ": --out writes " + out + " too"},
      {{"node-classify", "train", "--data", data, "--save", out, "--json", out}, "--save writes " + out + " too"},
      {{"node-classify", "evaluate", "--data", data, "--checkpoint", ckpt, "--json", ckpt}, "it is the input --checkpoint"},
      {{"contacts", "train", "--families", list, "--out", ckpt, "--checkpoint", ckpt}, "--out writes " + ckpt + " too"},
      {{"contacts", "train", "--families", list, "--out", list}, "it is the input --families"},
      {{"contacts", "predict", "--msa", h5, "--out", tmp.file("a")}, "cannot write " + h5 + " (from the prefix"},
      {{"contacts", "predict", "--msa", aln, "--out", out, "--json", out + ".png"}, "--out writes " + out + ".png too"},
      {{"contacts", "predict", "--msa", aln, "--out", out, "--truth", out + ".rr"}, "it is the input --truth"},
      {{"node-classify", "train", "--data", data, "--model", "gat", "--save", tmp.file("gat")}, ""},
      {{"contacts", "eval", "--pred", h5, "--truth", aln, "--json", h5}, "it is the input --pred"},
      {{"contacts", "predict", "--msa", aln, "--out", tmp.file("folder/../folder")}, ""},
      {{"layers", "--json", tmp.file("folder")}, "--json: cannot write " + tmp.file("folder") + ": it is a directory"},
      {{"bench", "--json", "/dev/null"}, "it is a device, not a regular file"},
      {{"layers", "--json", tmp.file("fifo")}, "it is a fifo, not a regular file"},
      // The program's --plugin is an input of every command, before or after the subcommand.
      {{"--plugin", plugin, "layers", "--json", plugin}, "--json: cannot write " + plugin + ": it is the input --plugin"},
      {{"convert", "--msa", aln, "--to", plugin, "--plugin", plugin}, "it is the input --plugin " + plugin},
      {{"--plugin", plugin, "node-classify", "train", "--data", data, "--save", plugin}, "it is the input --plugin"},
  };
  const std::set<std::string> before = files_in(tmp.path());
  for (const Case& c : cases) {
    const Result r = run(c.args);
    INFO(c.args[0] << " " << c.args[1] << " -> " << r.err);
    if (c.message.empty()) {  // allowed: PREFIX.h5 ... beside the folder; a preset name is no input file
      CHECK(r.code == 0);
      for (const char* made : {"folder.h5", "folder.mat", "folder.rr", "folder.png", "gat"}) fs::remove(tmp.file(made));
      continue;
    }
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(r.err.find(c.message) != std::string::npos);
  }
  CHECK(files_in(tmp.path()) == before);
  CHECK(read_text_file(ckpt) == "input\n");
  CHECK(read_text_file(plugin) == "input\n");
  CHECK(!read_text_file(data_file).empty());
  CHECK(fs::is_fifo(tmp.file("fifo")));
}

TEST_CASE("contacts predict refuses an output that is the shipped model", "[apps]") {
  TempDir tmp;
  const std::string aln = write_alignment(tmp.path() / "a.aln", 12, 1);
  fs::create_directories(tmp.path() / "models");
  const std::string model = tmp.file("models/contact_evoformer.h5");
  std::ofstream(model) << "the shipped model\n";
  const char* previous = std::getenv("ATTEND_DATA_DIR");
  const std::string restore = previous == nullptr ? "" : previous;
  ::setenv("ATTEND_DATA_DIR", tmp.path().c_str(), 1);
  const Result r = run({"contacts", "predict", "--method", "evoformer", "--msa", aln, "--out",
                        tmp.file("models/contact_evoformer"), "--quiet"});
  if (previous == nullptr) {
    ::unsetenv("ATTEND_DATA_DIR");
  } else {
    ::setenv("ATTEND_DATA_DIR", restore.c_str(), 1);
  }
  INFO(r.err);
  CHECK(r.code == 2);
  CHECK(r.err.find(model + ": the model file is what --out would write") != std::string::npos);
  CHECK(read_text_file(model) == "the shipped model\n");
  CHECK(files_in(tmp.path() / "models") == std::set<std::string>{"contact_evoformer.h5"});
}

TEST_CASE("contacts train refuses an output that a family list names", "[apps]") {
  TempDir tmp;
  const std::string aln = write_alignment(tmp.path() / "a.aln", 12, 1);
  const std::string truth = tmp.file("t.tsv");
  std::ofstream(truth) << "#L 12\n1\t12\t5.0\t1\n";
  const std::string list = tmp.file("list.txt");
  std::ofstream(list) << "a.aln t.tsv\n";
  const Result r = run({"contacts", "train", "--families", list, "--out", truth, "--epochs", "1"});
  INFO(r.err);
  CHECK(r.code == 2);
  CHECK(r.err.find(list + ":1: lists " + truth + ", which --out would replace") != std::string::npos);
  CHECK(read_text_file(truth) == "#L 12\n1\t12\t5.0\t1\n");
  CHECK(files_in(tmp.path()) == std::set<std::string>{"a.aln", "t.tsv", "list.txt"});
}

TEST_CASE("a command whose last output fails leaves none of its files", "[apps]") {
  // /proc passes the checks made while parsing (a directory, no such file) and refuses the
  // file at the end, after the other outputs were written: a late failure even for root.
  if (!fs::is_directory("/proc/self")) return;
  TempDir tmp;
  const std::string aln = write_alignment(tmp.path() / "a.aln", 12, 1);
  const std::string data = attend::testing::write_two_cluster_dataset(tmp.path() / "graph").string();
  fs::create_directory(tmp.path() / "out");
  const std::string out = tmp.file("out");
  const Result trained = run({"node-classify", "train", "--data", data, "--epochs", "2", "--quiet", "--save",
                              tmp.file("model.h5")});
  REQUIRE(trained.code == 0);
  for (const std::vector<std::string>& args : {
           std::vector<std::string>{"contacts", "predict", "--msa", aln, "--out", out + "/p", "--max-iterations", "3",
                                    "--quiet", "--json", "/proc/attend-fit.json"},
           {"node-classify", "predict", "--data", data, "--checkpoint", tmp.file("model.h5"), "--out", out + "/p.tsv",
            "--export-attention", "/proc/attend-attention.h5"},
           {"node-classify", "train", "--data", data, "--epochs", "2", "--quiet", "--save", out + "/m.h5", "--json",
            "/proc/attend-runs.json"},
       }) {
    const Result r = run(args);
    INFO(args[0] << " " << args[1] << " -> " << r.err);
    CHECK(r.code == 2);
    CHECK(r.err.find("/proc/attend-") != std::string::npos);
    CHECK(files_in(out).empty());
  }
}

TEST_CASE("two contacts predict runs with the same --out leave one run's whole set", "[apps]") {
  TempDir tmp;
  // Two families of one length: the runs take the same time, so their writes overlap.
  const std::string first_msa = write_alignment(tmp.path() / "first.aln", 40, 1);
  const std::string second_msa = write_alignment(tmp.path() / "second.aln", 40, 2);
  const auto predict = [](const std::string& msa, const std::string& prefix) {
    return std::vector<std::string>{"--threads", "1", "contacts", "predict", "--msa", msa, "--out", prefix,
                                    "--max-iterations", "5", "--quiet"};
  };
  REQUIRE(wait_exit_code(start_attend(predict(first_msa, tmp.file("first")))) == 0);
  REQUIRE(wait_exit_code(start_attend(predict(second_msa, tmp.file("second")))) == 0);
  fs::create_directory(tmp.path() / "shared");
  const std::string prefix = tmp.file("shared/p");
  for (int attempt = 0; attempt < 12; ++attempt) {
    const pid_t a = start_attend(predict(first_msa, prefix));
    const pid_t b = start_attend(predict(second_msa, prefix));
    CHECK(wait_exit_code(a) == 0);
    CHECK(wait_exit_code(b) == 0);
    INFO("attempt " << attempt);
    CHECK((same_prediction_set(prefix, tmp.file("first")) || same_prediction_set(prefix, tmp.file("second"))));
    CHECK(files_in(tmp.path() / "shared") == std::set<std::string>{"p.h5", "p.mat", "p.png", "p.rr"});
  }
}

TEST_CASE("a command removes the temporary files that killed writers left beside its outputs", "[apps]") {
  TempDir tmp;
  const std::string msa = write_alignment(tmp.path() / "a.aln", 12, 1);
  fs::create_directory(tmp.path() / "out");
  const std::string prefix = tmp.file("out/p");
  // A writer of p.h5 killed (SIGKILL) in the middle of its write.
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    try {
      AtomicOutput output(prefix + ".h5");
      std::ofstream(output.temp_path()) << "partial";
      ::raise(SIGKILL);
    } catch (...) {
    }
    ::_exit(1);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(files_in(tmp.path() / "out").size() == 1);
  const Result r = run({"contacts", "predict", "--msa", msa, "--out", prefix, "--max-iterations", "3", "--quiet"});
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(files_in(tmp.path() / "out") == std::set<std::string>{"p.h5", "p.mat", "p.png", "p.rr"});
}
