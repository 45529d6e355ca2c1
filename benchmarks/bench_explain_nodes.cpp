/// Benchmark of `attend explain node`'s library path (graph/explain/node_explanation.hpp,
/// explain_node) on a GNNExplainer benchmark graph written by `attend generate` (--data, with
/// its motif_nodes.txt) and a model trained on it (--checkpoint, `attend node-classify train
/// --save`): explains the first --nodes motif nodes one after the other with --method
/// (integrated-gradients with --steps, or gnnexplainer with its defaults), --repeats times,
/// and prints the median wall and CPU milliseconds per explained node. The explanation files and pictures of
/// the command are not written. --scores writes every node's attributions as JSON, which
/// benchmarks/compare.py checks against benchmarks/reference_explain_torch.py's (the same
/// work on the same weights); --json the timing.

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "attend/core/heap.hpp"
#include "attend/core/openmp_waiting.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/quadrature.hpp"
#include "attend/core/registry.hpp"
#include "attend/graph/builtin_layers.hpp"
#include "attend/graph/explain/node_explanation.hpp"
#include "attend/graph/motif_ground_truth.hpp"
#include "attend/graph/trained_node_model.hpp"
#include "option_checks.hpp"

using namespace attend;
using namespace attend::graph;

namespace {

/// One explanation as JSON: node and class ids, value, the edges [[source, target, score]]
/// (dataset ids), the feature scores and, for integrated gradients, the completeness gaps.
nlohmann::json explanation_json(const NodeExplanation& x) {
  nlohmann::json edges = nlohmann::json::array();
  for (std::size_t k = 0; k < x.edge_score.size(); ++k) edges.push_back({x.edge_src[k], x.edge_dst[k], x.edge_score[k]});
  nlohmann::json out = {{"node", x.node}, {"class", x.explained_class}, {"log_probability", x.value},
                        {"edges", edges}, {"features", x.feature_score}};
  if (x.edge_steps > 0) out["edge_completeness_gap"] = x.edge_completeness_gap;
  if (x.feature_steps > 0) out["feature_completeness_gap"] = x.feature_completeness_gap;
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  bound_openmp_spinning(argv);  // as the attend program does: before anything else
  std::string data_path, checkpoint, method = "integrated-gradients", scores_path, json_path;
  int64_t nodes = 100;
  int repeats = 3, threads = 0;
  ExplainOptions options;
  CLI::App app{"Benchmark explain_node on a generated GNNExplainer benchmark graph"};
  app.add_option("--data", data_path, "a folder written by attend generate")->required();
  app.add_option("--checkpoint", checkpoint, "a model trained on it (node-classify train --save)")->required();
  app.add_option("--method", method, "integrated-gradients or gnnexplainer")
      ->check(CLI::IsMember({"integrated-gradients", "gnnexplainer"}))
      ->capture_default_str();
  app.add_option("--nodes", nodes, "explain the first N motif nodes")->check(attend::cli::at_least(1));
  app.add_option("--steps", options.steps, "integrated gradients' midpoint steps")->check(attend::cli::at_least(1));
  app.add_option("--repeats", repeats, "timed runs; the median is reported")->check(attend::cli::at_least(1));
  app.add_option("--threads", threads, "thread count (default: OpenMP's)")->check(attend::cli::at_least(1));
  app.add_option("--scores", scores_path, "write the attributions (of the last run) as JSON here");
  app.add_option("--json", json_path, "write the timing as JSON here");
  CLI11_PARSE(app, argc, argv);
  if (threads > 0) set_num_threads(threads);
  keep_freed_memory();  // as the attend program

  Registry registry;
  register_graph_layers(registry);
  TrainedNodeModel m = load_trained_node_model(data_path, checkpoint, registry);
  const MotifGroundTruth truth = load_motif_ground_truth(data_path, m.data.dataset.num_nodes);
  std::vector<int64_t> targets;
  for (int64_t v = 0; v < truth.num_nodes() && static_cast<int64_t>(targets.size()) < nodes; ++v) {
    if (truth.node_motif[v] >= 0) targets.push_back(v);
  }
  options.method = explain_method_from_name(method);
  options.rule = QuadratureKind::kMidpoint;

  std::vector<double> seconds, cpu_seconds;  // wall, and CPU time of the process (all threads)
  std::vector<NodeExplanation> explained;
  for (int r = 0; r < repeats; ++r) {
    explained.clear();
    const auto start = std::chrono::steady_clock::now();
    const std::clock_t cpu_start = std::clock();
    for (int64_t v : targets) explained.push_back(explain_node(*m.loaded.model, m.data, v, options));
    cpu_seconds.push_back(static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC);
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  const auto per_node_ms = [&](std::vector<double> runs) {
    std::sort(runs.begin(), runs.end());
    return 1e3 * runs[runs.size() / 2] / static_cast<double>(targets.size());
  };
  const double ms_per_node = per_node_ms(seconds), cpu_ms_per_node = per_node_ms(cpu_seconds);
  std::printf("explain_node %s on %s: %zu motif nodes, %d threads, median of %d runs: %.2f ms per node (CPU %.2f ms)\n",
              method.c_str(), data_path.c_str(), targets.size(), num_threads(), repeats, ms_per_node, cpu_ms_per_node);
  if (!scores_path.empty()) {
    nlohmann::json all = nlohmann::json::array();
    for (const NodeExplanation& x : explained) all.push_back(explanation_json(x));
    std::ofstream(scores_path) << nlohmann::json{{"method", method}, {"explanations", all}}.dump() << "\n";
  }
  if (!json_path.empty()) {
    const nlohmann::json out = {{"method", method},   {"nodes", targets.size()}, {"threads", num_threads()},
                                {"steps", options.steps}, {"seconds", seconds},  {"ms_per_node", ms_per_node},
                                {"cpu_seconds", cpu_seconds}, {"cpu_ms_per_node", cpu_ms_per_node}};
    std::ofstream(json_path) << out.dump(2) << "\n";
  }
  return 0;
}
