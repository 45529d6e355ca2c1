/// What every rank of a data-parallel node-classification run holds when the graph is
/// replicated (the design of docs/architecture.md, "Data-parallel training"): the GraphContext
/// of a random undirected graph with --nodes nodes and --degree in-edges per node on average
/// (both directions stored, as from_dataset makes them), and, unless --features 0, a dense
/// [nodes, features] float matrix (the in-memory features; out-of-core features replace it by
/// the row cache). Prints the peak resident memory before and after, and bytes per edge and
/// per node; --json writes them. One size per process, so the peak belongs to that size.

#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "attend/core/measure.hpp"
#include "attend/core/random.hpp"
#include "attend/core/tensor.hpp"
#include "attend/graph/graph_context.hpp"
#include "option_checks.hpp"

using namespace attend;

int main(int argc, char** argv) {
  int64_t nodes = 100000, features = 100;
  double degree = 25.0;
  std::string json_path;
  CLI::App app{"Peak memory of a replicated graph (GraphContext and dense features)"};
  app.add_option("--nodes", nodes, "nodes")->check(attend::cli::at_least(1))->capture_default_str();
  app.add_option("--degree", degree, "mean in-degree (directed edges per node)")->capture_default_str();
  app.add_option("--features", features, "float features per node (0: none)")->check(attend::cli::at_least(0))->capture_default_str();
  app.add_option("--json", json_path, "write the results as JSON");
  CLI11_PARSE(app, argc, argv);

  const double before = peak_rss_mib();
  const auto pairs = static_cast<int64_t>(double(nodes) * degree / 2.0);
  int64_t edges = 0;
  {
    Rng rng(1);
    std::vector<int64_t> src, dst, relation;
    src.reserve(static_cast<std::size_t>(2 * pairs));
    dst.reserve(static_cast<std::size_t>(2 * pairs));
    for (int64_t e = 0; e < pairs; ++e) {
      const auto a = static_cast<int64_t>(rng.below(static_cast<uint64_t>(nodes)));
      const auto b = static_cast<int64_t>(rng.below(static_cast<uint64_t>(nodes)));
      if (a == b) continue;
      src.insert(src.end(), {a, b});
      dst.insert(dst.end(), {b, a});
    }
    relation.assign(src.size(), 0);
    edges = static_cast<int64_t>(src.size());
    const graph::GraphContext graph =
        graph::GraphContext::from_edges(nodes, 2, std::move(src), std::move(dst), std::move(relation));
    const Tensor x(features > 0 ? Shape{nodes, features} : Shape{0}, 0.5f);  // [N, F]
    const double graph_mib = peak_rss_mib() - before;
    const double feature_mib = double(x.numel()) * sizeof(float) / (1024.0 * 1024.0);
    std::printf("nodes %lld  edges %lld  features %lld: peak RSS %.0f MiB (%.0f MiB features, %.0f bytes per edge "
                "besides them)\n",
                static_cast<long long>(nodes), static_cast<long long>(edges), static_cast<long long>(features),
                peak_rss_mib(), feature_mib, (graph_mib - feature_mib) * 1024.0 * 1024.0 / double(edges));
    if (!json_path.empty()) {
      std::ofstream(json_path) << nlohmann::json{{"nodes", nodes},
                                                 {"edges", edges},
                                                 {"features", features},
                                                 {"peak_rss_mib", peak_rss_mib()},
                                                 {"feature_mib", feature_mib},
                                                 {"graph_mib", graph_mib - feature_mib}}
                                      .dump(2)
                               << '\n';
    }
  }
  return 0;
}
