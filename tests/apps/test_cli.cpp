// The `attend` command line run in process: parsing, the one-line error contract, `layers`.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "attend/bio/contact_model.hpp"
#include "attend/bio/contact_training.hpp"
#include "attend/bio/factored_attention.hpp"
#include "attend/bio/potts_predictor.hpp"
#include "attend/core/adam.hpp"
#include "attend/core/error.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/sgd.hpp"
#include "attend/graph/builtin_layers.hpp"
#include "cli.hpp"

using namespace attend;

namespace {

struct Result {
  int code;
  std::string out, err;
};

Result run(std::vector<std::string> args, Registry& registry) {
  args.insert(args.begin(), "attend");
  std::ostringstream out, err;
  const int code = cli::run_cli(args, registry, out, err);
  return {code, out.str(), err.str()};
}

Result run(std::vector<std::string> args) {
  Registry empty;
  return run(std::move(args), empty);
}

std::size_t count_lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

/// A layer with no parameters, enough to fill a registry.
class NullLayer : public Module {
 public:
  std::string type_name() const override { return "null"; }
  Json config() const override { return Json::object(); }
};

ModuleFactory null_factory() {
  return [](const Json&) { return std::make_unique<NullLayer>(); };
}

}  // namespace

TEST_CASE("attend --help lists every subcommand", "[apps]") {
  const Result r = run({"--help"});
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  for (const char* name : {"node-classify", "contacts", "convert", "layers", "bench", "--threads",
                           "--version"}) {
    INFO(name);
    CHECK(r.out.find(name) != std::string::npos);
  }
}

TEST_CASE("each subcommand has its own help", "[apps]") {
  for (const char* name : {"node-classify", "contacts", "convert", "layers", "bench"}) {
    INFO(name);
    const Result r = run({name, "--help"});
    CHECK(r.code == 0);
    CHECK(r.out.find(std::string("attend ") + name) != std::string::npos);
  }
}

/// The graph layers and the parameterless "null" layer (not a node layer).
Registry bench_registry() {
  Registry registry;
  graph::register_graph_layers(registry);
  registry.add("null", null_factory(), "test");
  return registry;
}

TEST_CASE("attend bench times a layer on a random graph and writes JSON", "[apps]") {
  Registry registry = bench_registry();
  const std::string json = (std::filesystem::temp_directory_path() / "attend_bench_test.json").string();
  std::filesystem::remove(json);
  const Result r = run({"bench", "--layer", "gat", "--options", "{\"heads\": 2, \"out_channels\": 4}",
                        "--nodes", "50", "--edges", "200", "--features", "6", "--repeats", "1",
                        "--thread-counts", "1,2", "--json", json},
                       registry);
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("fwd+bwd ms") != std::string::npos);
  std::ifstream in(json);
  const nlohmann::json j = nlohmann::json::parse(in);
  CHECK(j["layer"] == "gat");
  CHECK(j["config"]["heads"] == 2);
  CHECK(j["config"]["in_channels"] == 6);
  REQUIRE(j["results"].size() == 2);
  for (const auto& row : j["results"]) {
    CHECK(row["forward_ms"].get<double>() >= 0.0);
    CHECK(row["forward_backward_ms"].get<double>() >= 0.0);
  }
  std::filesystem::remove(json);
}

TEST_CASE("attend bench: relational and featureless layers, and clear errors", "[apps]") {
  Registry registry = bench_registry();
  const Result rgcn = run({"bench", "--layer", "rgcn", "--nodes", "40", "--edges", "120", "--features", "0",
                           "--relations", "3", "--repeats", "1"},
                          registry);
  INFO(rgcn.err);
  CHECK(rgcn.code == 0);
  const Result unknown = run({"bench", "--layer", "no_such_layer", "--nodes", "10", "--edges", "10"}, registry);
  CHECK(unknown.code == 2);
  CHECK(unknown.err.find("no_such_layer") != std::string::npos);
  const Result bad_json = run({"bench", "--options", "{heads", "--nodes", "10", "--edges", "10"}, registry);
  CHECK(bad_json.code == 2);
  CHECK(bad_json.err.find("--options") != std::string::npos);
  const Result not_node = run({"bench", "--layer", "null", "--nodes", "10", "--edges", "10"}, registry);
  CHECK(not_node.code == 2);
  CHECK(not_node.err.find("not a node layer") != std::string::npos);
}

TEST_CASE("a bad command line is one line on stderr and exit 2", "[apps]") {
  const std::vector<std::vector<std::string>> bad = {
      {},
      {"nonsense"},
      {"--bogus"},
      {"layers", "--bogus"},
      {"layers", "extra"},
      {"layers", "--json"},
      {"--threads", "0", "layers"},
      {"--threads", "many", "layers"},
      {"--threads"},
      {"contacts"},
      {"convert"},
  };
  for (const auto& args : bad) {
    const Result r = run(args);
    std::string shown;
    for (const auto& a : args) shown += a + " ";
    INFO("attend " << shown << "-> " << r.err);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(count_lines(r.err) == 1);
    CHECK(r.err.rfind("attend: error: ", 0) == 0);
  }
  CHECK(run({"nonsense"}).err.find("unknown subcommand 'nonsense'") != std::string::npos);
  CHECK(run({"layers", "--bogus"}).err.find("--bogus") != std::string::npos);
}

TEST_CASE("a numeric option out of its range stops the command before any work", "[apps]") {
  // Every other argument is valid in form; the files need not exist, since nothing may run.
  const std::vector<std::string> node = {"node-classify", "train", "--data", "/nonexistent"};
  const std::vector<std::string> predict = {"contacts", "predict", "--msa", "/nonexistent.aln", "--out", "/tmp/x"};
  const std::vector<std::string> train = {"contacts", "train", "--families", "/nonexistent.txt", "--out", "/tmp/m.h5"};
  const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> cases = {
      {node, {"--runs", "0"}},
      {node, {"--epochs", "-5"}},
      {node, {"--patience", "-1"}},
      {predict, {"--heads", "0"}},
      {predict, {"--max-iterations", "0"}},
      {predict, {"--lambda-single", "-1"}},
      {predict, {"--lambda-pair-factor", "-0.5"}},
      {predict, {"--tolerance", "nan"}},
      {predict, {"--score-at-iterations", "10,0"}},
      {train, {"--crop", "1"}},
      {train, {"--c-m", "0"}},
      {train, {"--lr", "0"}},
      {train, {"--weight-decay", "-1"}},
      {train, {"--min-separation", "0"}},
      {train, {"--steps-per-epoch", "0"}},
      {train, {"--patience", "-3"}},
      {{"bench"}, {"--nodes", "0"}},
      {{"bench"}, {"--thread-counts", "1,0"}},
      // Issue #18: NaN passed CLI11's Range and "-1" became the seed 2^64 - 1.
      {node, {"--validation-fraction", "nan"}},
      {predict, {"--max-column-gaps", "nan"}},
      {predict, {"--max-sequence-gaps", "1.5"}},
      {node, {"--seed", "-1"}},
      {node, {"--validation-seed", "1.5"}},
      {predict, {"--seed", "18446744073709551616"}},
      {train, {"--seed", "-3"}},
      {{"bench"}, {"--seed", "nan"}},
  };
  for (const auto& [command, option] : cases) {
    std::vector<std::string> args = command;
    args.insert(args.end(), option.begin(), option.end());
    const Result r = run(args);
    INFO(option[0] << " " << option[1] << " -> " << r.err);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(count_lines(r.err) == 1);
    CHECK(r.err.find(option[0] + ": ") != std::string::npos);
    CHECK((r.err.find("must be") != std::string::npos || r.err.find("expected a number") != std::string::npos ||
           r.err.find("expected a seed") != std::string::npos));
  }
}

TEST_CASE("the --threads flag sets the thread count", "[apps]") {
  const int before = num_threads();
  const Result r = run({"--threads", "3", "layers"});
  const int after = num_threads();
  set_num_threads(before);
  CHECK(r.code == 0);
  CHECK(after == 3);
}

TEST_CASE("attend layers prints the registry as a table and as JSON", "[apps]") {
  Registry registry;
  registry.add("gat_v2", null_factory());
  registry.add("my-layer", null_factory(), "/plugins/libmine.so");
  const auto dir = std::filesystem::temp_directory_path() /
                   ("attend_test_cli_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "layers.json").string();

  const Result r = run({"layers", "--json", path}, registry);
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  // A header and one row per entry, each row naming the entry and its origin.
  REQUIRE(count_lines(r.out) == 1 + registry.list().size());
  std::istringstream lines(r.out);
  std::string line;
  std::getline(lines, line);
  CHECK(line.find("NAME") != std::string::npos);
  CHECK(line.find("ORIGIN") != std::string::npos);
  for (const auto& entry : registry.list()) {
    std::getline(lines, line);
    std::istringstream words(line);
    std::string name, origin;
    words >> name >> origin;
    CHECK(name == entry.name);
    CHECK(origin == entry.origin);
  }

  std::ifstream file(path);
  const Json json = Json::parse(file);
  REQUIRE(json.at("layers").size() == registry.list().size());
  for (std::size_t i = 0; i < registry.list().size(); ++i) {
    CHECK(json["layers"][i].at("name") == registry.list()[i].name);
    CHECK(json["layers"][i].at("origin") == registry.list()[i].origin);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("attend layers --options prints each node layer's options, the table of the user guide", "[apps]") {
  Registry registry;
  graph::register_graph_layers(registry);
  registry.add("undocumented", null_factory());
  std::ifstream file(std::string(ATTEND_DOCS_DIR) + "/user-guide.md");
  const std::string guide((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  REQUIRE_FALSE(guide.empty());
  for (const char* layer : {"gat", "gatv2", "gcn", "rgat", "rgcn", "graph_transformer", "graphormer", "node_linear", "batch_norm"}) {
    INFO(layer);
    const Result r = run({"layers", "--options", layer}, registry);
    CHECK(r.code == 0);
    CHECK(r.out.find("| `in_channels` | integer | required | > 0 |") != std::string::npos);
    CHECK(guide.find("#### `" + std::string(layer) + "`\n\n" + r.out) != std::string::npos);
  }
  const Result unknown = run({"layers", "--options", "nope"}, registry);
  CHECK(unknown.code == 2);
  CHECK(unknown.err.find("unknown layer 'nope'") != std::string::npos);
  const Result bare = run({"layers", "--options", "undocumented"}, registry);
  CHECK(bare.code == 2);
  CHECK(bare.err.find("documents no options") != std::string::npos);
}

TEST_CASE("the user guide's optimizer tables are the optimizers' option lists", "[apps]") {
  std::ifstream file(std::string(ATTEND_DOCS_DIR) + "/user-guide.md");
  const std::string guide((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  REQUIRE_FALSE(guide.empty());
  CHECK(guide.find("#### optimizer `adam`, `adamw`\n\n" + option_table_markdown(AdamOptions::option_list().docs())) !=
        std::string::npos);
  CHECK(guide.find("#### optimizer `sgd`\n\n" + option_table_markdown(SgdOptions::option_list().docs())) !=
        std::string::npos);
}

TEST_CASE("the user guide's contact tables are the contact option lists", "[apps]") {
  std::ifstream file(std::string(ATTEND_DOCS_DIR) + "/user-guide.md");
  const std::string guide((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  REQUIRE_FALSE(guide.empty());
  const std::vector<std::pair<std::string, std::vector<OptionDoc>>> tables = {
      {"method `potts`", bio::PottsOptions::option_list().docs()},
      {"method `factored`", bio::FactoredOptions::option_list().docs()},
      {"`contact_model`", bio::ContactModelOptions::option_list().docs()},
      {"`contacts train`", bio::ContactTrainOptions::option_list().docs()},
  };
  for (const auto& [heading, docs] : tables) {
    const std::string section = "#### " + heading + "\n\n" + option_table_markdown(docs);
    INFO(section);
    CHECK(guide.find(section) != std::string::npos);
  }
}

TEST_CASE("attend layers on an empty registry", "[apps]") {
  const Result r = run({"layers"});
  CHECK(r.code == 0);
  CHECK(r.out == "no layers registered\n");
}

TEST_CASE("an output path in a missing directory stops the command before any work", "[apps]") {
  const std::string missing = "/nonexistent-dir/attend/";
  const std::vector<std::vector<std::string>> cases = {
      {"layers", "--json", missing + "layers.json"},
      {"node-classify", "train", "--data", "/nonexistent", "--save", missing + "model.h5"},
      {"node-classify", "train", "--data", "/nonexistent", "--json", missing + "runs.json"},
      {"node-classify", "predict", "--data", "/d", "--checkpoint", "/c.h5", "--out", missing + "p.tsv"},
      {"node-classify", "evaluate", "--data", "/d", "--checkpoint", "/c.h5", "--json", missing + "e.json"},
      {"contacts", "predict", "--msa", "/a.aln", "--out", missing + "prefix"},
      {"contacts", "predict", "--msa", "/a.aln", "--out", "/tmp/prefix", "--json", missing + "fit.json"},
      {"contacts", "train", "--families", "/f.txt", "--out", "/tmp/m.h5", "--checkpoint", missing + "state.h5"},
      {"convert", "--graph", "/g", "--to", missing + "g.h5"},
      {"bench", "--json", missing + "bench.json"},
  };
  for (const auto& args : cases) {
    const Result r = run(args);
    INFO(args[0] << " " << args[1] << " -> " << r.err);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(count_lines(r.err) == 1);
    CHECK(r.err.find("cannot write " + missing) != std::string::npos);
    CHECK(r.err.find("directory '/nonexistent-dir/attend' does not exist") != std::string::npos);
  }
}

TEST_CASE("report_failure: one line, exit 2 for input errors and 1 otherwise", "[apps]") {
  std::ostringstream err;
  auto report = [&](auto exception) {
    err.str("");
    return cli::report_failure(std::make_exception_ptr(exception), err);
  };
  CHECK(report(InputError("data.tsv", 7, "expected 3 columns\ngot 2")) == 2);
  CHECK(err.str() == "attend: error: data.tsv:7: expected 3 columns; got 2\n");
  CHECK(report(Error("broken invariant\n  at here\n")) == 1);
  CHECK(err.str() == "attend: internal error: broken invariant; at here\n");
  CHECK(report(std::runtime_error("boom")) == 1);
  CHECK(err.str() == "attend: internal error: boom\n");
  CHECK(report(42) == 1);
  CHECK(err.str() == "attend: internal error: unknown exception\n");
}

TEST_CASE("the contacts options take their ranges and names from the option lists", "[apps]") {
  Registry registry;
  const std::vector<std::string> predict = {"contacts", "predict", "--msa", "/nonexistent.aln", "--out", "/tmp/x"};
  const std::vector<std::string> train = {"contacts", "train", "--families", "/nonexistent.txt", "--out", "/tmp/m.h5"};
  const auto allowed = [](const std::vector<OptionDoc>& docs, const std::string& key) {
    for (const OptionDoc& d : docs) {
      if (d.key == key) return d.allowed;
    }
    FAIL("no option " << key);
    return std::string();
  };
  const std::vector<OptionDoc> potts = bio::PottsOptions::option_list().docs();
  const std::vector<OptionDoc> factored = bio::FactoredOptions::option_list().docs();
  const std::vector<OptionDoc> model = bio::ContactModelOptions::option_list().docs();
  const std::vector<OptionDoc> training = bio::ContactTrainOptions::option_list().docs();
  // option, its command, a value out of range, what the option's list documents as allowed
  const std::vector<std::tuple<std::string, std::vector<std::string>, std::string, std::string>> cases = {
      {"--heads", predict, "0", allowed(factored, "n_heads")},
      {"--value-states", predict, "22", allowed(factored, "value_states")},
      {"--max-iterations", predict, "0", allowed(potts, "max_iterations")},
      {"--lambda-single", predict, "-1", allowed(potts, "lambda_single")},
      {"--tolerance", predict, "-0.5", allowed(potts, "epsilon")},
      {"--max-sequence-gaps", predict, "1.5", allowed(potts, "max_sequence_gap_fraction")},
      {"--max-column-gaps", predict, "-0.1", allowed(potts, "max_column_gap_fraction")},
      {"--blocks", train, "-1", allowed(model, "blocks")},
      {"--c-z", train, "0", allowed(model, "c_z")},
      {"--msa-depth", train, "0", allowed(model, "msa_depth")},
      {"--crop", train, "1", allowed(training, "crop")},
      {"--lr", train, "0", allowed(training, "lr")},
      {"--weight-decay", train, "-1", allowed(training, "weight_decay")},
      {"--patience", train, "-2", allowed(training, "patience")},
  };
  for (const auto& [option, command, value, range] : cases) {
    std::vector<std::string> args = command;
    args.insert(args.end(), {option, value});
    const Result r = run(args, registry);
    INFO(option << " " << value << " -> " << r.err);
    CHECK(r.code == 2);
    CHECK(r.err.find(option + ": must be " + range + ", got '" + value + "'") != std::string::npos);
  }
  // A value the list reads passes the option check: the missing input stops the command.
  const Result accepted = run({"contacts", "predict", "--msa", "/nonexistent.aln", "--out", "/tmp/x", "--value-states", "21"},
                              registry);
  CHECK(accepted.code == 2);
  CHECK(accepted.err.find("--value-states") == std::string::npos);
  const Result names = run({"contacts", "predict", "--msa", "/a.aln", "--out", "/tmp/x", "--regularization", "plm"}, registry);
  CHECK(names.code == 2);
  CHECK(names.err.find("--regularization: must be one of 'ccmpred', 'plmdca', got 'plm'") != std::string::npos);
}
