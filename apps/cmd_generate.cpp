// `attend generate BENCHMARK --seed S --out DIR`: one of GNNExplainer's synthetic benchmarks
// with its ground truth (graph/explainer_benchmark.hpp), written as a dataset folder.
#include <filesystem>
#include <memory>
#include <string>

#include "attend/core/output_transaction.hpp"
#include "attend/core/quoted_input.hpp"
#include "attend/graph/explainer_benchmark.hpp"
#include "commands.hpp"
#include "option_checks.hpp"

namespace attend::cli {

namespace {

// An output folder: created when missing, so its parent must exist, and the path must not be
// something other than a folder. (File outputs are checked by CommandFiles, which refuses
// folders.)
CLI::Validator output_folder() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::error_code error;
        if (std::filesystem::exists(text, error) && !std::filesystem::is_directory(text, error)) {
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
  graph::ExplainerBenchmarkOptions options;
  bool quiet = false;
};
}  // namespace

Command add_generate_command(CLI::App& parent, Context& context) {
  CLI::App* app = parent.add_subcommand(
      "generate", "Generate a synthetic benchmark of GNNExplainer (Ying et al. 2019) with its ground truth");
  auto a = std::make_shared<GenerateArgs>();
  app->add_option("benchmark", a->benchmark, "ba-shapes, ba-community, tree-cycles or tree-grid")
      ->required()
      ->check(CLI::IsMember(graph::explainer_benchmark_names()).description(""))
      ->type_name("BENCHMARK");
  app->add_option("--out", a->out,
                  "Dataset folder to write (created when missing): the plain-text layout of "
                  "'node-classify --data' plus motif_edges.txt and motif_nodes.txt")
      ->required()
      ->check(output_folder())
      ->type_name("DIR");
  app->add_option("--seed", a->options.seed, "Seed of every random draw (the same seed gives the same files)")
      ->check(seed())
      ->capture_default_str();
  app->add_option("--noise", a->options.noise_per_node, "Random noise edges per node (the paper's 0.1 N)")
      ->check(within(0.0, 1.0))
      ->capture_default_str()
      ->type_name("RATE");
  app->add_flag("--quiet", a->quiet, "No progress lines");
  auto run = [&context, a]() {
    if (!a->quiet) context.err << "generate " << a->benchmark << " (seed " << a->options.seed << "): building the graph\n";
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
