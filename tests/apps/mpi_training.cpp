// Run by ctest when attend is built with MPI, as `test_mpi_training contacts` or
// `test_mpi_training node-classify`: `attend contacts train` on the shipped training and
// validation families, or `attend node-classify train` on Cora in sampled mini-batches of 4
// shards, once as a plain process and once under `mpirun -np 2` (root allowed: the flag belongs
// to this test only). Both runs must end with the same parameters, Adam state and best
// parameters bit for bit and report the same numbers; the 2-rank run prints what the plain run
// prints, once; so do runs with sampled and with layer-wise inference (their validation
// batches spread over the ranks). Commands that cannot run on 2 ranks are refused, the
// refusal printed once. Prints what differs; exit 1 on a failure.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attend/core/checkpoint.hpp"
#include "temp_dir.hpp"

extern char** environ;

namespace fs = std::filesystem;

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (ok) return;
  std::cerr << "FAILED: " << what << '\n';
  ++failures;
}

struct Run {
  int code = -1;
  std::string out, err;
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// `argv` in `dir`, stdout and stderr captured through files.
Run run(std::vector<std::string> argv_strings, const fs::path& dir, const std::string& name) {
  std::vector<char*> argv;
  for (std::string& a : argv_strings) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string out = (dir / (name + ".stdout")).string(), err = (dir / (name + ".stderr")).string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  Run r;
  if (posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ) == 0) {
    int status = 0;
    waitpid(pid, &status, 0);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  posix_spawn_file_actions_destroy(&actions);
  r.out = read_text(out);
  r.err = read_text(err);
  return r;
}

bool same_tensors(const std::vector<std::pair<std::string, attend::Tensor>>& a,
                  const std::vector<std::pair<std::string, attend::Tensor>>& b, const std::string& what) {
  bool same = a.size() == b.size();
  for (std::size_t i = 0; same && i < a.size(); ++i) {
    const attend::Tensor &x = a[i].second, &y = b[i].second;
    same = a[i].first == b[i].first && x.shape() == y.shape() &&
           std::memcmp(x.data(), y.data(), static_cast<std::size_t>(x.numel()) * sizeof(float)) == 0;
    if (!same) std::cerr << what << ": " << a[i].first << " differs\n";
  }
  return same;
}

std::vector<std::string> mpirun_np(int ranks) {
  return {ATTEND_MPIEXEC, "--oversubscribe", "--allow-run-as-root", "-np", std::to_string(ranks)};
}

// The output without the lines that report training times ("trained ...", "run ..."), the
// run's file names as `name`'s.
std::string without_timing(const std::string& text, const std::string& run, const std::string& name) {
  std::istringstream lines(text);
  std::string line, kept;
  while (std::getline(lines, line)) {
    if (line.rfind("trained ", 0) == 0 || line.rfind("run ", 0) == 0) continue;
    if (const std::size_t at = line.find("/" + run + "."); at != std::string::npos) line.replace(at + 1, run.size(), name);
    kept += line + '\n';
  }
  return kept;
}

// `command` run plain ("one") and on 2 ranks ("two"), each option of `outputs` given the file
// RUN.OPTION in `dir`.
struct Pair {
  Run one, two;
};
Pair run_both(const std::vector<std::string>& command, const std::vector<std::string>& outputs, const fs::path& dir) {
  auto with = [&](std::vector<std::string> head, const std::string& name) {
    head.insert(head.end(), command.begin(), command.end());
    for (const std::string& option : outputs) {
      head.push_back("--" + option);
      head.push_back((dir / (name + "." + option)).string());
    }
    return head;
  };
  Pair p;
  p.one = run(with({ATTEND_BINARY}, "one"), dir, "one");
  expect(p.one.code == 0, "the plain run exits 0: " + p.one.err);
  std::vector<std::string> two_ranks = mpirun_np(2);
  two_ranks.push_back(ATTEND_BINARY);
  p.two = run(with(two_ranks, "two"), dir, "two");
  expect(p.two.code == 0, "the 2-rank run exits 0: " + p.two.err);
  return p;
}

void compare_checkpoints(const fs::path& a, const fs::path& b, bool with_optimizer) {
  const attend::CheckpointData x = attend::load_checkpoint(a.string());
  const attend::CheckpointData y = attend::load_checkpoint(b.string());
  expect(same_tensors(x.parameters, y.parameters, a.filename().string()), a.filename().string() + ": the same parameters");
  if (!with_optimizer) return;
  expect(same_tensors(x.optimizer_state, y.optimizer_state, "adam"), a.filename().string() + ": the same Adam moments");
  expect(same_tensors(x.trainer_tensors, y.trainer_tensors, "trainer"), a.filename().string() + ": the same best parameters");
}

// `args` under mpirun -np 2 must exit 2 with `message` (and, with `before_work`, print nothing
// on stdout: refused before anything was read).
void expect_refused(const std::vector<std::string>& args, const std::string& message, const fs::path& dir,
                    bool before_work) {
  std::vector<std::string> command = mpirun_np(2);
  command.push_back(ATTEND_BINARY);
  command.insert(command.end(), args.begin(), args.end());
  const Run r = run(command, dir, "refused");
  expect(r.code == 2, "'" + args[0] + "' on 2 ranks exits 2, got " + std::to_string(r.code) + ": " + r.err);
  expect(r.err.find(message) != std::string::npos, "the refusal says '" + message + "': " + r.err);
  expect(r.err.find("attend: error:") == r.err.rfind("attend: error:"), "the refusal is printed once (rank 0): " + r.err);
  if (before_work) expect(r.out.empty(), "a refused command prints nothing on stdout: " + r.out);
}

void contacts(const fs::path& dir) {
  const std::string proteins = std::string(ATTEND_DATA_DIR) + "/proteins";
  const Pair p = run_both({"contacts", "train", "--families", proteins + "/contact_train.txt", "--val",
                           proteins + "/contact_val.txt", "--epochs", "3", "--steps-per-epoch", "2", "--crop", "16",
                           "--msa-depth", "8", "--c-m", "4", "--c-z", "4", "--quiet"},
                          {"out", "checkpoint", "json"}, dir);
  if (failures > 0) return;
  compare_checkpoints(dir / "one.out", dir / "two.out", false);
  compare_checkpoints(dir / "one.checkpoint", dir / "two.checkpoint", true);
  const nlohmann::json json1 = nlohmann::json::parse(read_text(dir / "one.json"));
  const nlohmann::json json2 = nlohmann::json::parse(read_text(dir / "two.json"));
  expect(json1["history"] == json2["history"], "the epochs' losses and metrics are equal");
  expect(without_timing(p.one.out, "one", "one") == without_timing(p.two.out, "two", "one"),
         "rank 0 prints what the plain run prints, rank 1 nothing:\n" + p.two.out);
  expect_refused({"layers"}, "under mpirun only 'attend contacts train'", dir, true);
}

void node_classify(const fs::path& dir) {
  const std::string cora = std::string(ATTEND_DATA_DIR) + "/graphs/cora";
  const std::vector<std::string> train = {"node-classify", "train", "--data", cora, "--fanouts", "10,5", "--batch-size",
                                          "64", "--shards", "4", "--epochs", "3", "--seed", "3", "--quiet"};
  const Pair p = run_both(train, {"save", "json"}, dir);
  if (failures > 0) return;
  compare_checkpoints(dir / "one.save", dir / "two.save", true);
  nlohmann::json json1 = nlohmann::json::parse(read_text(dir / "one.json"));
  nlohmann::json json2 = nlohmann::json::parse(read_text(dir / "two.json"));
  expect(json1["processes"] == 1 && json2["processes"] == 2, "the summaries record the process counts");
  for (const char* key : {"val_acc", "test_acc", "epochs"}) {
    expect(json1["runs"][0][key] == json2["runs"][0][key], std::string("the runs' ") + key + " are equal");
  }
  expect(without_timing(p.one.out, "one", "one") == without_timing(p.two.out, "two", "one"),
         "rank 0 prints what the plain run prints, rank 1 nothing:\n" + p.two.out);
  // Sampled validation and scoring, each rank a share of the batches: the bits of one process.
  std::vector<std::string> sampled = train;
  sampled.insert(sampled.end(), {"--inference", "sampled", "--inference-batch-size", "128"});
  fs::create_directories(dir / "sampled");
  run_both(sampled, {"save", "json"}, dir / "sampled");
  if (failures > 0) return;
  compare_checkpoints(dir / "sampled" / "one.save", dir / "sampled" / "two.save", true);
  json1 = nlohmann::json::parse(read_text(dir / "sampled" / "one.json"));
  json2 = nlohmann::json::parse(read_text(dir / "sampled" / "two.json"));
  for (const char* key : {"val_acc", "test_acc", "epochs", "history"}) {
    expect(json1["runs"][0][key] == json2["runs"][0][key], std::string("sampled inference: the runs' ") + key + " are equal");
  }
  // Layer-wise validation and scoring, each rank a share of every layer's batches: the same.
  std::vector<std::string> layerwise = train;
  layerwise.insert(layerwise.end(), {"--inference", "layerwise", "--inference-batch-size", "300"});
  fs::create_directories(dir / "layerwise");
  run_both(layerwise, {"save", "json"}, dir / "layerwise");
  if (failures > 0) return;
  compare_checkpoints(dir / "layerwise" / "one.save", dir / "layerwise" / "two.save", true);
  json1 = nlohmann::json::parse(read_text(dir / "layerwise" / "one.json"));
  json2 = nlohmann::json::parse(read_text(dir / "layerwise" / "two.json"));
  for (const char* key : {"val_acc", "test_acc", "epochs", "history"}) {
    expect(json1["runs"][0][key] == json2["runs"][0][key], std::string("layer-wise inference: the runs' ") + key + " are equal");
  }
  std::vector<std::string> one_shard = train;
  one_shard[9] = "1";  // --shards 1 on 2 processes
  expect_refused(one_shard, "needs at least as many shards per batch", dir, false);
  expect_refused({"node-classify", "train", "--data", cora, "--epochs", "1"}, "it needs sampled mini-batch training", dir, false);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string which = argc > 1 ? argv[1] : "";
  attend::testing::TempDir tmp;
  if (which == "contacts") {
    contacts(tmp.path());
  } else if (which == "node-classify") {
    node_classify(tmp.path());
  } else {
    std::cerr << "usage: test_mpi_training contacts|node-classify\n";
    return 1;
  }
  if (failures == 0) std::cout << which << " train on 2 ranks: the bits of 1 rank\n";
  return failures == 0 ? 0 : 1;
}
