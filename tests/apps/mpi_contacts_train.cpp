// Run by ctest when attend is built with MPI: `attend contacts train` on the shipped training
// and validation families, once as a plain process and once under `mpirun -np 2` (root allowed,
// the flag belongs to this test only). Both runs must end with the same parameters, Adam state,
// best parameters and epoch losses bit for bit; the 2-rank run prints what the plain run
// prints, once; `mpirun -np 2 attend layers` is refused. Prints what differs; exit 1 on a failure.
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

// The output without the line that reports the training time, the run's file names as `name`'s.
std::string without_timing(const std::string& text, const std::string& run, const std::string& name) {
  std::istringstream lines(text);
  std::string line, kept;
  while (std::getline(lines, line)) {
    if (line.rfind("trained ", 0) == 0) continue;
    if (const std::size_t at = line.find("/" + run + "."); at != std::string::npos) line.replace(at + 1, run.size(), name);
    kept += line + '\n';
  }
  return kept;
}

}  // namespace

int main() {
  attend::testing::TempDir tmp;
  const std::string proteins = std::string(ATTEND_DATA_DIR) + "/proteins";
  const std::vector<std::string> train = {
      "contacts", "train", "--families", proteins + "/contact_train.txt", "--val", proteins + "/contact_val.txt",
      "--epochs", "3", "--steps-per-epoch", "2", "--crop", "16", "--msa-depth", "8", "--c-m", "4", "--c-z", "4",
      "--quiet"};
  auto with = [&](std::vector<std::string> head, const std::string& name) {
    head.insert(head.end(), train.begin(), train.end());
    for (const std::string& option : {"out", "checkpoint", "json"}) {
      head.push_back("--" + option);
      head.push_back((tmp.path() / (name + "." + option)).string());
    }
    return head;
  };
  const Run one = run(with({ATTEND_BINARY}, "one"), tmp.path(), "one");
  expect(one.code == 0, "the plain run exits 0: " + one.err);
  const std::vector<std::string> mpirun = {ATTEND_MPIEXEC, "--oversubscribe", "--allow-run-as-root", "-np", "2"};
  std::vector<std::string> two_ranks = mpirun;
  two_ranks.push_back(ATTEND_BINARY);
  const Run two = run(with(two_ranks, "two"), tmp.path(), "two");
  expect(two.code == 0, "the 2-rank run exits 0: " + two.err);
  if (failures > 0) return 1;

  const attend::CheckpointData model1 = attend::load_checkpoint((tmp.path() / "one.out").string());
  const attend::CheckpointData model2 = attend::load_checkpoint((tmp.path() / "two.out").string());
  expect(same_tensors(model1.parameters, model2.parameters, "model"), "the models have the same bits");
  const attend::CheckpointData state1 = attend::load_checkpoint((tmp.path() / "one.checkpoint").string());
  const attend::CheckpointData state2 = attend::load_checkpoint((tmp.path() / "two.checkpoint").string());
  expect(same_tensors(state1.parameters, state2.parameters, "checkpoint"), "the last epochs' parameters have the same bits");
  expect(same_tensors(state1.optimizer_state, state2.optimizer_state, "adam"), "the Adam moments have the same bits");
  expect(same_tensors(state1.trainer_tensors, state2.trainer_tensors, "trainer"), "the best parameters have the same bits");
  const nlohmann::json json1 = nlohmann::json::parse(read_text(tmp.path() / "one.json"));
  const nlohmann::json json2 = nlohmann::json::parse(read_text(tmp.path() / "two.json"));
  expect(json1["history"] == json2["history"], "the epochs' losses and metrics are equal");
  expect(without_timing(one.out, "one", "one") == without_timing(two.out, "two", "one"), "rank 0 prints what the plain run prints, rank 1 nothing:\n" + two.out);

  std::vector<std::string> layers = mpirun;
  layers.insert(layers.end(), {ATTEND_BINARY, "layers"});
  const Run refused = run(layers, tmp.path(), "layers");
  expect(refused.code == 2, "'layers' under mpirun exits 2, got " + std::to_string(refused.code));
  expect(refused.err.find("under mpirun only 'attend contacts train'") != std::string::npos,
         "'layers' under mpirun says why: " + refused.err);
  expect(refused.out.empty(), "'layers' under mpirun prints nothing on stdout");
  if (failures == 0) std::cout << "contacts train on 2 ranks: the bits of 1 rank\n";
  return failures == 0 ? 0 : 1;
}
