// `attend generate BENCHMARK --seed S [--recipe paper|authors] --out DIR`: one of GNNExplainer's
// synthetic benchmarks with its ground truth (graph/explainer_benchmark.hpp), written as a
// dataset folder; or
// `attend generate large-graph --nodes N --edges E ... --out FILE.h5`: a large synthetic
// graph written straight to a graph file (graph/large_graph_generator.hpp).
#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>

#include "attend/core/error.hpp"
#include "attend/core/output_transaction.hpp"
#include "attend/core/quoted_input.hpp"
#include "attend/graph/explainer_benchmark.hpp"
#include "attend/graph/large_graph_generator.hpp"
#include "commands.hpp"
#include "option_checks.hpp"

namespace attend::cli {

namespace {

/// The benchmark that writes one HDF5 graph file rather than a dataset folder.
constexpr const char* kLargeGraph = "large-graph";

/// Whether `path` names an HDF5 file (by its extension), the output of large-graph.
bool is_h5_name(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  return ext == ".h5" || ext == ".hdf5";
}

// An output folder (created when missing, so its parent must exist, and the path must not be
// something other than a folder), or for a name ending in .h5 / .hdf5 an output file (its
// folder must exist and it must not be a folder). The benchmark decides which it needs.
CLI::Validator output_folder() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::error_code error;
        if (is_h5_name(text) && std::filesystem::is_directory(text, error)) {
          return "cannot write the graph file " + quoted_input(text) + ": it is a folder";
        }
        if (!is_h5_name(text) && std::filesystem::exists(text, error) && !std::filesystem::is_directory(text, error)) {
          return "cannot write the dataset folder " + quoted_input(text) + ": it exists and is not a folder";
        }
        const std::filesystem::path parent = std::filesystem::path(text).parent_path();
        if (parent.empty() || std::filesystem::is_directory(parent, error)) return std::string();
        return "cannot write " + quoted_input(text) + ": folder " + quoted_input(parent.string()) + " does not exist";
      },
      "");
}

struct GenerateArgs {
  std::string benchmark;
  std::string out;
  std::string recipe = "paper";
  double noise_per_node = 0.1;  // passed on only when --noise is given
  graph::ExplainerBenchmarkOptions options;
  graph::LargeGraphOptions large;
  bool compress = false;
  bool quiet = false;
};

/// Names the benchmark positional accepts.
std::vector<std::string> benchmark_names() {
  std::vector<std::string> names = graph::explainer_benchmark_names();
  names.emplace_back(kLargeGraph);
  return names;
}

/// The options of large-graph (ignored by the other benchmarks).
void add_large_graph_options(CLI::App* app, GenerateArgs& a) {
  const std::string group = "large-graph (sizes default to ogbn-products)";
  app->add_option("--nodes", a.large.nodes, "Nodes")->check(at_least(1))->capture_default_str()->group(group);
  app->add_option("--edges", a.large.edges, "Undirected edges, each stored once")
      ->check(at_least(0))
      ->capture_default_str()
      ->group(group);
  app->add_option("--features", a.large.features, "Dense float features per node")
      ->check(at_least(1))
      ->capture_default_str()
      ->group(group);
  app->add_option("--classes", a.large.classes, "Classes")->check(at_least(1))->capture_default_str()->group(group);
  app->add_option("--homophily", a.large.homophily, "Probability that an edge stays inside its class")
      ->check(within(0.0, 1.0))
      ->capture_default_str()
      ->type_name("RATE")
      ->group(group);
  app->add_option("--signal", a.large.signal, "Scale of the class means in the features (noise has sd 1)")
      ->check(at_least(0.0))
      ->capture_default_str()
      ->group(group);
  app->add_option("--train-fraction", a.large.train_fraction, "Share of the nodes in the training split")
      ->check(within(0.0, 1.0))
      ->capture_default_str()
      ->type_name("RATE")
      ->group(group);
  app->add_option("--val-fraction", a.large.val_fraction, "Share of the nodes in the validation split (the rest: test)")
      ->check(within(0.0, 1.0))
      ->capture_default_str()
      ->type_name("RATE")
      ->group(group);
  app->add_option("--chunk-rows", a.large.file.chunk_rows, "Feature rows per HDF5 chunk (0: contiguous, read row by row without HDF5)")
      ->check(at_least(0))
      ->capture_default_str()
      ->group(group);
  app->add_flag("--compress", a.compress, "Compress the feature chunks (shuffle + gzip)")->group(group);
}

/// large-graph: the graph file, with progress lines on `err`.
int generate_large_graph(const GenerateArgs& a, Context& context) {
  if (!is_h5_name(a.out)) {
    throw InputError("large-graph writes one HDF5 file: give --out a name ending in .h5 (got " + quoted_input(a.out) + ")");
  }
  graph::LargeGraphOptions options = a.large;
  options.seed = a.options.seed;
  options.file.compress = a.compress;
  int last_percent = -1;
  std::string last_stage;
  const graph::GenerateProgress progress = [&](const std::string& stage, int64_t done, int64_t total) {
    const int percent = static_cast<int>(100 * done / std::max<int64_t>(total, 1));
    if (a.quiet || (stage == last_stage && percent / 10 == last_percent / 10)) return;
    last_stage = stage;
    last_percent = percent;
    context.err << "generate large-graph: " << stage << " " << done << "/" << total << "\n" << std::flush;
  };
  if (!a.quiet) {
    context.err << "generate large-graph (seed " << options.seed << "): " << options.nodes << " nodes, "
                << options.edges << " edges, " << options.features << " features, " << options.classes
                << " classes\n";
  }
  OutputTransaction outputs;
  const graph::LargeGraphSummary s = graph::write_large_graph(a.out, options, progress);
  outputs.commit();
  context.out << "wrote " << a.out << ": " << s.nodes << " nodes, " << s.edges << " undirected edges, " << s.features
              << " dense features, " << s.classes << " classes, split " << s.train << "/" << s.val << "/" << s.test
              << "\n";
  return 0;
}
}  // namespace

Command add_generate_command(CLI::App& parent, Context& context) {
  CLI::App* app = parent.add_subcommand(
      "generate", "Generate a synthetic benchmark of GNNExplainer (Ying et al. 2019) with its ground truth");
  auto a = std::make_shared<GenerateArgs>();
  app->add_option("benchmark", a->benchmark,
                  "ba-shapes, ba-community, tree-cycles or tree-grid, or large-graph (a graph file for "
                  "out-of-core training)")
      ->required()
      ->check(CLI::IsMember(benchmark_names()).description(""))
      ->type_name("BENCHMARK");
  app->add_option("--out", a->out,
                  "Dataset folder to write (created when missing): the plain-text layout of "
                  "'node-classify --data' plus motif_edges.txt and motif_nodes.txt; for large-graph the "
                  "HDF5 graph file (FILE.h5)")
      ->required()
      ->check(output_folder())
      ->type_name("DIR");
  app->add_option("--seed", a->options.seed, "Seed of every random draw (the same seed gives the same files)")
      ->check(seed())
      ->capture_default_str();
  app->add_option("--recipe", a->recipe,
                  "How tree-cycles and tree-grid are built: paper (the paper's text: 80 motifs on random tree "
                  "nodes, 0.1 N noise edges) or authors (as the authors' code built their released data: 60 "
                  "cycles, motifs on evenly spaced tree nodes, a second tree edge for half of the cycles, 1 % "
                  "of the edges as noise)")
      ->check(CLI::IsMember(graph::benchmark_recipe_names()).description(""))
      ->capture_default_str()
      ->type_name("RECIPE");
  CLI::Option* noise =
      app->add_option("--noise", a->noise_per_node, "Random noise edges per node (the paper's 0.1 N; --recipe paper only)")
          ->check(within(0.0, 1.0))
          ->capture_default_str()
          ->type_name("RATE");
  add_large_graph_options(app, *a);
  app->add_flag("--quiet", a->quiet, "No progress lines");
  auto run = [&context, a, noise]() {
    if (a->benchmark == kLargeGraph) return generate_large_graph(*a, context);
    a->options.recipe = graph::benchmark_recipe(a->recipe);
    if (noise->count() > 0) a->options.noise_per_node = a->noise_per_node;
    std::error_code error;
    if (std::filesystem::exists(a->out, error) && !std::filesystem::is_directory(a->out, error)) {
      throw InputError("cannot write the dataset folder " + quoted_input(a->out) + ": it exists and is not a folder");
    }
    graph::check_explainer_benchmark(a->benchmark, a->options);  // bad options: one line, before any progress
    if (!a->quiet) {
      context.err << "generate " << a->benchmark << " (seed " << a->options.seed << ", recipe " << a->recipe
                  << "): building the graph\n";
    }
    const graph::ExplainerBenchmark b = graph::make_explainer_benchmark(a->benchmark, a->options);
    if (!a->quiet) context.err << "generate " << a->benchmark << ": writing " << a->out << "\n";
    OutputTransaction outputs;  // the folder's files appear together
    graph::save_explainer_benchmark(a->out, b);
    outputs.commit();
    const graph::NodeDataset& d = b.dataset;
    context.out << "wrote " << a->out << ": " << d.name << ", " << d.num_nodes << " nodes, " << d.num_edges()
                << " undirected edges (" << b.truth.num_edges() << " in motifs), " << d.num_features()
                << (d.num_features() == 1 ? " feature, " : " features, ") << d.num_classes << " classes, split "
                << d.train.size() << "/" << d.val.size() << "/" << d.test.size() << "\n";
    return 0;
  };
  return {app, run};
}

}  // namespace attend::cli
