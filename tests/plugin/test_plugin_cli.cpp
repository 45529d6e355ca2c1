// Plugins through the `attend` command line, in process: --plugin (repeatable, before or
// after the subcommand), ATTEND_PLUGIN_PATH, refusals as one line, and a checkpoint that
// needs a plugin layer.
#include <catch2/catch.hpp>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "attend/core/builtin_layers.hpp"
#include "attend/graph/builtin_layers.hpp"
#include "cli.hpp"
#include "../apps/run_attend.hpp"
#include "temp_dir.hpp"
#include "two_cluster_dataset.hpp"

using namespace attend;
namespace fs = std::filesystem;

namespace {
using attend::testing::write_two_cluster_dataset;
using Result = attend::testing::CliResult;

Result run(std::vector<std::string> args) { return attend::testing::run_attend(std::move(args)); }

/// Sets an environment variable for the scope.
struct ScopedEnv {
  ScopedEnv(const char* name, const std::string& value) : name_(name) { ::setenv(name, value.c_str(), 1); }
  ~ScopedEnv() { ::unsetenv(name_); }
  const char* name_;
};

std::string canonical(const char* path) { return fs::canonical(path).string(); }

/// The ORIGIN column of `name`'s row in `attend layers`' table ("" when absent).
std::string origin_of(const std::string& table, const std::string& name) {
  std::istringstream in(table);
  std::string row_name, origin;
  while (in >> row_name >> std::ws && std::getline(in, origin)) {
    if (row_name == name) return origin;
  }
  return "";
}

}  // namespace

TEST_CASE("attend --plugin loads plugins and layers shows their origin", "[plugin]") {
  const Result r = run({"--plugin", ATTEND_AGNN_PLUGIN, "layers", "--plugin", ATTEND_GATED_GAT_PLUGIN});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(origin_of(r.out, "agnn") == canonical(ATTEND_AGNN_PLUGIN));
  CHECK(origin_of(r.out, "gated_gat") == canonical(ATTEND_GATED_GAT_PLUGIN));
  CHECK(origin_of(r.out, "gat") == "built-in");
}

TEST_CASE("gated_gat's options are gat's option list but residual, documented and checked alike", "[plugin]") {
  const Result gat = run({"layers", "--options", "gat"});
  const Result gated = run({"--plugin", ATTEND_GATED_GAT_PLUGIN, "layers", "--options", "gated_gat"});
  INFO(gated.err);
  REQUIRE(gated.code == 0);
  REQUIRE(gat.code == 0);
  // Every row of gat's table but residual's is in gated_gat's (input_dropout with its own meaning).
  std::istringstream rows(gat.out);
  int shared = 0;
  for (std::string row; std::getline(rows, row);) {
    if (row.rfind("| `residual`", 0) == 0) {
      CHECK(gated.out.find(row) == std::string::npos);
    } else if (row.rfind("| `input_dropout`", 0) == 0) {
      CHECK(gated.out.find("| `input_dropout` | number | 0.0 | [0, 1) |") != std::string::npos);
    } else {
      CHECK(gated.out.find(row + "\n") != std::string::npos);
      ++shared;
    }
  }
  CHECK(shared > 10);
  CHECK(gated.out.find("residual") == std::string::npos);
}

TEST_CASE("ATTEND_PLUGIN_PATH loads every plugin of its directories, once", "[plugin]") {
  const std::string dir = fs::path(ATTEND_AGNN_PLUGIN).parent_path().string();
  ScopedEnv env("ATTEND_PLUGIN_PATH", "/nonexistent/attend:" + dir);
  // The same file named again by --plugin is not loaded twice.
  const Result r = run({"layers", "--plugin", ATTEND_AGNN_PLUGIN});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(origin_of(r.out, "agnn") == canonical(ATTEND_AGNN_PLUGIN));
  CHECK(origin_of(r.out, "gated_gat") == canonical(ATTEND_GATED_GAT_PLUGIN));
}

TEST_CASE("a refused plugin stops the command with one line and exit code 2", "[plugin]") {
  const std::string broken = std::string(ATTEND_BROKEN_PLUGIN_DIR) + "/fingerprint_mismatch.so";
  const Result r = run({"--plugin", broken, "layers"});
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK_THAT(r.err, Catch::Matchers::StartsWith("attend: error: plugin '" + broken + "' was built as"));
}

TEST_CASE("node-classify trains with a plugin layer, and its checkpoint needs the plugin", "[plugin]") {
  attend::testing::TempDir tmp;
  const std::string data = write_two_cluster_dataset(tmp.path() / "tiny").string();
  const std::string model = tmp.file("model.json"), ckpt = tmp.file("model.h5"), preds = tmp.file("pred.tsv");
  std::ofstream(model) << R"({"layers": [{"type": "agnn", "out_channels": 8}, {"type": "gated_gat", "heads": 2, "concat": false}],
                              "activation": "relu", "epochs": 20})";
  Result r = run({"--plugin", ATTEND_AGNN_PLUGIN, "--plugin", ATTEND_GATED_GAT_PLUGIN, "node-classify", "train",
                  "--data", data, "--model", model, "--quiet", "--save", ckpt});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Matchers::Contains("test accuracy"));

  r = run({"node-classify", "predict", "--data", data, "--checkpoint", ckpt, "--out", preds});
  CHECK(r.code == 2);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK_THAT(r.err, Catch::Matchers::Contains("unknown layer 'agnn'"));
  CHECK_FALSE(fs::exists(preds));

  r = run({"node-classify", "predict", "--plugin", ATTEND_AGNN_PLUGIN, "--plugin", ATTEND_GATED_GAT_PLUGIN, "--data", data,
           "--checkpoint", ckpt, "--out", preds});
  INFO(r.err);
  REQUIRE(r.code == 0);
  std::ifstream p(preds);
  std::string line;
  int lines = 0;
  while (std::getline(p, line)) ++lines;
  CHECK(lines == 13);  // the header and a row per node
}
