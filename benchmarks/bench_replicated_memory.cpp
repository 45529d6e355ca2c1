/// What every rank of a data-parallel node-classification run holds when the graph is
/// replicated (the design of docs/architecture.md, "Data-parallel training"), part by part:
/// a random undirected graph with --nodes nodes and about --degree in-edges per node (--nodes
/// x --degree / 2 random pairs, both directions taken, duplicates dropped, as from_dataset
/// makes them), read in blocks straight into the GraphContext's compact in-edge index (what
/// sampled training and inference hold, as a graph file read with StructureEdges::kIndex),
/// then its `plain` view, then its `looped` view (what full-batch training builds), and,
/// unless --features 0, a dense [nodes, features] float matrix (the in-memory features;
/// out-of-core features replace it by the row cache). After each part it prints the peak
/// resident memory and the bytes per directed edge that part added; --json writes them. One
/// size per process, so the peaks belong to that size.

#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "attend/core/measure.hpp"
#include "attend/core/openmp_waiting.hpp"
#include "attend/core/random.hpp"
#include "attend/core/tensor.hpp"
#include "attend/graph/graph_context.hpp"
#include "option_checks.hpp"

using namespace attend;

int main(int argc, char** argv) {
  bound_openmp_spinning(argv);  // as the attend program does: before anything else
  int64_t nodes = 100000, features = 100;
  double degree = 25.0;
  std::string json_path;
  CLI::App app{"Peak memory of a replicated graph, part by part (in-edge index, views, dense features)"};
  app.add_option("--nodes", nodes, "nodes")->check(attend::cli::at_least(2))->capture_default_str();
  app.add_option("--degree", degree, "mean in-degree (directed edges per node)")->capture_default_str();
  app.add_option("--features", features, "float features per node (0: none)")->check(attend::cli::at_least(0))->capture_default_str();
  app.add_option("--json", json_path, "write the results as JSON");
  CLI11_PARSE(app, argc, argv);

  const auto pairs = static_cast<int64_t>(double(nodes) * degree / 2.0);
  // The pairs in blocks of 2^20, the same on every pass (the index reads them twice).
  const graph::DatasetEdgeBlocks blocks = [&](const auto& visit) {
    Rng rng(1);
    std::vector<int64_t> src, dst;
    for (int64_t first = 0; first < pairs; first += int64_t{1} << 20) {
      src.clear();
      dst.clear();
      for (int64_t e = first; e < std::min(pairs, first + (int64_t{1} << 20)); ++e) {
        src.push_back(static_cast<int64_t>(rng.below(static_cast<uint64_t>(nodes))));
        dst.push_back(static_cast<int64_t>(rng.below(static_cast<uint64_t>(nodes))));
      }
      visit(graph::DatasetEdgeBlock{src, dst, {}});
    }
  };
  nlohmann::json parts = nlohmann::json::array();
  double last = peak_rss_mib();
  int64_t edges = 0;
  const auto report = [&](const char* part, double exact_mib) {
    const double peak = peak_rss_mib();
    const double per_edge = (peak - last) * 1024.0 * 1024.0 / double(edges);
    std::printf("%-14s peak RSS %7.0f MiB  +%6.0f MiB  %6.1f bytes per edge", part, peak, peak - last, per_edge);
    if (exact_mib >= 0) std::printf("  (held: %.0f MiB, %.1f bytes per edge)", exact_mib, exact_mib * 1024.0 * 1024.0 / double(edges));
    std::printf("\n");
    parts.push_back({{"part", part}, {"peak_rss_mib", peak}, {"added_mib", peak - last}, {"bytes_per_edge", per_edge},
                     {"held_mib", exact_mib}});
    last = peak;
  };
  {
    const graph::GraphContext graph =
        graph::GraphContext::from_in_edges(2, graph::InEdgeIndex::from_dataset_edges(nodes, false, 1, blocks));
    edges = graph.in_edges().num_edges();
    std::printf("nodes %lld  pairs %lld  directed edges %lld (duplicates dropped)\n", static_cast<long long>(nodes),
                static_cast<long long>(pairs), static_cast<long long>(edges));
    report("in-edge index", double(graph.in_edges().bytes()) / (1024.0 * 1024.0));
    graph.plain();
    report("plain view", -1);
    graph.looped();
    report("looped view", -1);
    const Tensor x(features > 0 ? Shape{nodes, features} : Shape{0}, 0.5f);  // [N, F]
    report("features", double(x.numel()) * sizeof(float) / (1024.0 * 1024.0));
  }
  if (!json_path.empty()) {
    std::ofstream(json_path) << nlohmann::json{{"nodes", nodes}, {"edges", edges}, {"features", features}, {"parts", parts}}.dump(2)
                             << '\n';
  }
  return 0;
}
