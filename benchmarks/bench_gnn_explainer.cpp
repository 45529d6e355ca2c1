/// Benchmark of GNNExplainer (graph/explain/gnn_explainer.hpp) on a GNNExplainer benchmark
/// graph: generates it (--benchmark, --seed), takes the model of the preset of the same name
/// (untrained, or trained and saved by `attend node-classify train --save` with --checkpoint:
/// the time per node depends on the graph and the model's shape, not on its weights) and
/// explains the first --nodes motif nodes (of the whole graph, or of its validation or test
/// split with --split: for choosing GNNExplainer's settings on validation nodes, --epochs,
/// --lr, --edge-size, --edge-entropy), one after the other, timing the whole run. Prints
/// seconds per explained node and the explanation AUC against the motif edges (all explained
/// edges of all nodes pooled, as GNNExplainer's evaluation; meaningful for a trained model),
/// and writes JSON to --json.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>
#include <utility>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "attend/core/heap.hpp"
#include "attend/core/openmp_waiting.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/registry.hpp"
#include "attend/graph/builtin_layers.hpp"
#include "attend/graph/explain/computation_graph.hpp"
#include "attend/graph/explain/gnn_explainer.hpp"
#include "attend/graph/explain/roc_auc.hpp"
#include "attend/graph/explainer_benchmark.hpp"
#include "attend/graph/node_model_spec.hpp"
#include "attend/graph/node_training.hpp"
#include "option_checks.hpp"

using namespace attend;
using namespace attend::graph;

int main(int argc, char** argv) {
  bound_openmp_spinning(argv);  // as the attend program does: before anything else
  std::string benchmark = "ba-shapes", checkpoint, json_path, split = "all";
  uint64_t seed = 0;
  int64_t nodes = 100;
  int epochs = 100, threads = 0;
  bool edges_only = false;
  GnnExplainerOptions options;
  CLI::App app{"Benchmark GNNExplainer on a GNNExplainer benchmark graph"};
  app.add_option("--benchmark", benchmark, "ba-shapes, ba-community, tree-cycles or tree-grid");
  app.add_option("--seed", seed, "seed of the generated graph");
  app.add_option("--checkpoint", checkpoint, "a model trained on this graph (default: the untrained preset)");
  app.add_option("--nodes", nodes, "motif nodes to explain")->check(attend::cli::at_least(1));
  app.add_option("--epochs", epochs, "GNNExplainer epochs")->check(attend::cli::at_least(1));
  app.add_option("--split", split, "explain motif nodes of every split, or of val or test")
      ->check(CLI::IsMember({"all", "val", "test"}));
  app.add_option("--lr", options.lr, "GNNExplainer's Adam learning rate")->capture_default_str();
  app.add_option("--edge-size", options.edge_size, "weight of the edge mask's size penalty")->capture_default_str();
  app.add_option("--edge-entropy", options.edge_entropy, "weight of the edge mask's entropy penalty")->capture_default_str();
  app.add_flag("--edges-only", edges_only, "learn no feature mask (PyG's node_mask_type None)");
  app.add_option("--threads", threads, "thread count (default: OpenMP's)")->check(attend::cli::at_least(1));
  app.add_option("--json", json_path, "write the results as JSON to this file");
  CLI11_PARSE(app, argc, argv);
  if (threads > 0) set_num_threads(threads);
  keep_freed_memory();  // as the attend program: training steps reuse pages

  Registry registry;
  register_graph_layers(registry);
  ExplainerBenchmarkOptions generate;
  generate.seed = seed;
  const NodeModelSpec spec = NodeModelSpec::load(benchmark);
  ExplainerBenchmark generated = make_explainer_benchmark(benchmark, generate);
  const PreparedNodeData data = prepare_node_data(std::move(generated.dataset), spec.normalize_features);
  std::set<std::pair<int64_t, int64_t>> motif_edges;  // both directions
  for (int64_t m = 0; m < generated.truth.num_edges(); ++m) {
    motif_edges.insert({generated.truth.edge_src[m], generated.truth.edge_dst[m]});
    motif_edges.insert({generated.truth.edge_dst[m], generated.truth.edge_src[m]});
  }
  std::unique_ptr<NodeClassifier> model;
  if (!checkpoint.empty()) {
    model = load_node_model(checkpoint, registry).model;
  } else {
    model = std::make_unique<NodeClassifier>(resolve_model_config(spec, data.dataset, data.graph, seed, registry), registry);
  }
  std::vector<int64_t> candidates;  // in node order
  if (split == "all") {
    for (int64_t v = 0; v < data.dataset.num_nodes; ++v) candidates.push_back(v);
  } else {
    candidates = split == "val" ? data.dataset.val : data.dataset.test;
    std::sort(candidates.begin(), candidates.end());
  }
  std::vector<int64_t> targets;
  for (int64_t v : candidates) {
    if (generated.truth.node_motif[v] >= 0 && static_cast<int64_t>(targets.size()) < nodes) targets.push_back(v);
  }
  double graph_nodes = 0.0, graph_edges = 0.0;  // mean computation graph size
  for (int64_t v : targets) {
    const ComputationGraph cg = computation_graph(data, v, model->message_passing_hops());
    graph_nodes += static_cast<double>(cg.num_nodes()) / static_cast<double>(targets.size());
    graph_edges += static_cast<double>(cg.explained.size()) / static_cast<double>(targets.size());
  }

  options.epochs = epochs;
  options.learn_feature_mask = !edges_only;
  const auto start = std::chrono::steady_clock::now();
  const std::vector<GnnExplanation> explained = gnn_explain_nodes(*model, data, targets, {}, options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double per_node = seconds / static_cast<double>(explained.size());
  std::vector<float> scores;
  std::vector<bool> positive;
  for (const GnnExplanation& e : explained) {
    for (std::size_t k = 0; k < e.edge_score.size(); ++k) {
      scores.push_back(e.edge_score[k]);
      positive.push_back(motif_edges.count({e.edge_src[k], e.edge_dst[k]}) > 0);
    }
  }
  const double auc = roc_auc(scores, positive);

  std::printf("GNNExplainer on %s (seed %llu), %zu motif nodes (%s), %d epochs, lr %g, edge size %g, edge entropy %g, "
              "%d threads, %s model\n", benchmark.c_str(), static_cast<unsigned long long>(seed), explained.size(),
              split.c_str(), epochs, options.lr, options.edge_size, options.edge_entropy, num_threads(),
              checkpoint.empty() ? "untrained" : "trained");
  std::printf("computation graph: %.1f nodes, %.1f explained edges on average\n", graph_nodes, graph_edges);
  std::printf("total %.3f s, %.4f s per node; explanation AUC %.3f\n", seconds, per_node, auc);
  if (!json_path.empty()) {
    const nlohmann::json out = {{"benchmark", benchmark}, {"seed", seed},         {"nodes", explained.size()},
                                {"epochs", epochs},       {"threads", num_threads()},
                                {"split", split}, {"lr", options.lr}, {"edge_size", options.edge_size},
                                {"edge_entropy", options.edge_entropy}, {"seconds", seconds},
                                {"seconds_per_node", per_node}, {"graph_nodes", graph_nodes},
                                {"explained_edges", graph_edges}, {"trained", !checkpoint.empty()},
                                {"auc", auc}};
    std::ofstream(json_path) << out.dump(2) << "\n";
  }
  return 0;
}
