// `attend bench`: time one registered node layer (built-in or plugin) on a random graph,
// inference forward and training forward + backward, for one or more thread counts.
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "attend/core/autodiff.hpp"
#include "attend/core/error.hpp"
#include "attend/core/json_reader.hpp"
#include "attend/core/json_writer.hpp"
#include "attend/core/measure.hpp"
#include "attend/core/options_json.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/random.hpp"
#include "attend/graph/graph_context.hpp"
#include "attend/graph/node_layer.hpp"
#include "attend/graph/random_multigraph.hpp"
#include "command_files.hpp"
#include "commands.hpp"
#include "option_checks.hpp"

namespace attend::cli {

namespace {

struct BenchOptions {
  std::string layer = "gat";
  std::string options = "{}";
  int64_t nodes = 10000;
  int64_t edges = 100000;
  int64_t features = 128;
  int64_t relations = 0;
  std::vector<int> thread_counts;
  int repeats = 5;
  uint64_t seed = 1;
  std::string json_path;
};

/// The layer's options: --options, with in_channels from the features (the node count for
/// featureless nodes), out_channels 64 and num_relations from the graph unless given.
Json layer_config(const BenchOptions& o, const graph::GraphContext& graph) {
  Json config = parse_json(o.options, "--options");
  if (!config.is_object()) throw InputError("--options", 0, "expected a JSON object of layer options");
  if (!config.contains("in_channels")) config["in_channels"] = o.features > 0 ? o.features : o.nodes;
  if (!config.contains("out_channels")) config["out_channels"] = 64;
  if (o.relations > 0 && !config.contains("num_relations")) config["num_relations"] = graph.num_relations();
  return config;
}

int run_bench(const BenchOptions& o, Context& context) {
  Rng rng(o.seed);
  const graph::GraphContext graph = graph::GraphContext::from_dataset(
      graph::random_multigraph({.num_nodes = o.nodes, .num_edges = o.edges, .num_relations = o.relations, .directed = true}, rng));
  const Json config = layer_config(o, graph);
  std::unique_ptr<Module> module;
  try {
    module = context.registry.create(o.layer, config);
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    throw InputError("--layer " + o.layer + ": " + e.what());
  }
  const auto* layer = dynamic_cast<const graph::NodeLayer*>(module.get());
  if (layer == nullptr) throw InputError("--layer " + o.layer + ": not a node layer (attend bench times node layers)");
  graph::NodeFeatures x(graph::identity_features(o.nodes));  // featureless: a learned embedding
  if (o.features > 0) {
    Tensor dense({o.nodes, o.features});  // [N, F], uniform in [-1, 1]
    for (float& v : dense) v = rng.uniform(-1.0f, 1.0f);
    x = graph::NodeFeatures(Var(std::move(dense), false));
  }
  Tensor seed_grad({o.nodes, layer->out_features()});  // [N, out]
  for (float& v : seed_grad) v = rng.uniform(-1.0f, 1.0f);

  context.out << "layer " << o.layer << " " << with_short_floats(module->config()).dump() << "\n"
              << "graph: " << o.nodes << " nodes, " << o.edges << " random edges"
              << (o.relations > 0 ? ", " + std::to_string(o.relations) + " relations" : std::string())
              << ", " << (o.features > 0 ? std::to_string(o.features) + " features" : std::string("featureless"))
              << "; " << module->parameter_count() << " parameters; median of " << o.repeats << "\n";
  char line[128];
  std::snprintf(line, sizeof line, "%8s %14s %18s\n", "threads", "forward ms", "fwd+bwd ms");
  context.out << line << std::flush;
  const int threads_before = num_threads();
  Json results = Json::array();
  std::vector<int> counts = o.thread_counts.empty() ? std::vector<int>{threads_before} : o.thread_counts;
  for (int t : counts) {
    set_num_threads(t);
    module->eval();
    const double forward = 1e3 * time_calls(o.repeats, [&] {
      NoGradGuard no_grad;
      layer->forward(x, graph, o.seed);
    }).wall;
    module->train();
    const double train = 1e3 * time_calls(o.repeats, [&] {
      for (auto& [name, p] : module->named_parameters()) p.zero_grad();
      layer->forward(x, graph, o.seed).backward(seed_grad);
    }).wall;
    std::snprintf(line, sizeof line, "%8d %14.2f %18.2f\n", t, forward, train);
    context.out << line << std::flush;
    results.push_back({{"threads", t}, {"forward_ms", forward}, {"forward_backward_ms", train}});
  }
  set_num_threads(threads_before);
  const double rss = peak_rss_mib();
  context.out << "peak resident memory: " << static_cast<int64_t>(std::lround(rss)) << " MiB\n";
  if (!o.json_path.empty()) {
    write_json_file(o.json_path, {{"layer", o.layer},
                                  {"config", module->config()},
                                  {"nodes", o.nodes},
                                  {"edges", o.edges},
                                  {"relations", o.relations},
                                  {"features", o.features},
                                  {"repeats", o.repeats},
                                  {"seed", o.seed},
                                  {"results", results},
                                  {"peak_rss_mib", rss}});
  }
  return 0;
}

}  // namespace

Command add_bench_command(CLI::App& parent, Context& context) {
  CLI::App* app = parent.add_subcommand(
      "bench", "Time a node layer (built-in or plugin) on a random graph: forward and forward+backward");
  auto o = std::make_shared<BenchOptions>();
  app->add_option("--layer", o->layer, "Registered layer name (see `attend layers`)")->capture_default_str();
  app->add_option("--options", o->options,
                  "Layer options as JSON; in_channels, out_channels (64) and num_relations default from the graph")
      ->capture_default_str();
  app->add_option("--nodes", o->nodes, "Nodes of the random graph")->check(at_least(1))->capture_default_str();
  app->add_option("--edges", o->edges, "Random directed edges")->check(at_least(0))->capture_default_str();
  app->add_option("--features", o->features, "Dense input features per node (0: featureless, a learned embedding)")
      ->check(at_least(0))
      ->capture_default_str();
  app->add_option("--relations", o->relations, "Edge types for relational layers (0: untyped)")
      ->check(at_least(0))
      ->capture_default_str();
  app->add_option("--thread-counts", o->thread_counts, "Thread counts to time, e.g. 1,2 (default: --threads)")
      ->delimiter(',')
      ->check(at_least(1));
  app->add_option("--repeats", o->repeats, "Timed runs per measurement; the median is reported")
      ->check(at_least(1))
      ->capture_default_str();
  app->add_option("--seed", o->seed, "Seed of the graph, features and dropout")->check(seed())->capture_default_str();
  CommandFiles::of(app)->output(
      app->add_option("--json", o->json_path, "Also write the results as JSON to FILE")->type_name("FILE"));
  return {app, [o, &context] { return run_bench(*o, context); }};
}

}  // namespace attend::cli
