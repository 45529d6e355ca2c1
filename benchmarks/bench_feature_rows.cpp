/// Benchmark of node features read out of core (graph/hdf5_feature_rows.hpp) from a graph
/// file with dense features (`attend generate large-graph` or `attend convert
/// --features-layout dense`): opens the graph without its feature values
/// (load_graph_structure_h5), reporting the seconds and the peak RSS of that load, then
/// gathers the feature rows of --batches batches of --rows nodes drawn uniformly (the rows a
/// neighbour-sampled batch needs are spread over the graph alike: a 1024-seed batch with
/// fan-outs 25,10 reaches up to 282,624 nodes) through an LRU cache of --cache-mb. Prints rows
/// per second, the cache's hit rate and the peak RSS, and writes JSON to --json. Run one
/// configuration per process: peak RSS is the process's. The graph views (GraphContext) are
/// not built: their memory belongs to the training loop.

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "attend/core/measure.hpp"
#include "attend/core/openmp_waiting.hpp"
#include "attend/core/random.hpp"
#include "attend/graph/graph_store.hpp"
#include "option_checks.hpp"

using namespace attend;
using namespace attend::graph;

namespace {
double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
}  // namespace

int main(int argc, char** argv) {
  bound_openmp_spinning(argv);  // as the attend program does: before anything else
  std::string graph_path, json_path, selection = "hyperslabs";
  double cache_mb = 0;
  int64_t rows_per_batch = 100000, batches = 10;
  uint64_t seed = 0;
  CLI::App app{"Benchmark reading node feature rows out of core from a graph file"};
  app.add_option("--graph", graph_path, "graph file with dense features")->required();
  app.add_option("--cache-mb", cache_mb, "LRU row cache budget in MiB")->check(attend::cli::at_least(0.0));
  app.add_option("--selection", selection, "hyperslabs or points")->check(CLI::IsMember({"hyperslabs", "points"}));
  app.add_option("--rows", rows_per_batch, "nodes per batch (drawn uniformly, with repeats)")
      ->check(attend::cli::at_least(1));
  app.add_option("--batches", batches, "batches to gather")->check(attend::cli::at_least(1));
  app.add_option("--seed", seed, "seed of the batches");
  app.add_option("--json", json_path, "write the results as JSON to this file");
  CLI11_PARSE(app, argc, argv);

  const Hdf5FeatureRowsOptions options{static_cast<int64_t>(cache_mb * 1024 * 1024),
                                       selection == "points" ? RowSelection::kPoints : RowSelection::kHyperslabs,
                                       false};
  auto start = std::chrono::steady_clock::now();
  GraphStructure g = load_graph_structure_h5(graph_path, options);
  const double load_seconds = seconds_since(start);
  const double load_rss = peak_rss_mib();
  std::cout << "graph " << graph_path << ": " << g.dataset.num_nodes << " nodes, " << g.dataset.num_edges()
            << " edges, " << g.features->cols() << " features\n"
            << "structure load " << load_seconds << " s, peak RSS " << load_rss << " MiB" << std::endl;

  Rng rng(seed);
  double gather_seconds = 0;
  int64_t rows = 0;
  std::vector<int64_t> ids(static_cast<std::size_t>(rows_per_batch));
  for (int64_t b = 0; b < batches; ++b) {
    for (int64_t& id : ids) id = static_cast<int64_t>(rng.below(static_cast<uint64_t>(g.dataset.num_nodes)));
    start = std::chrono::steady_clock::now();
    const Tensor x = g.features->gather(ids);  // [n, F]
    gather_seconds += seconds_since(start);
    rows += x.dim(0);
  }
  const double rss = peak_rss_mib();
  const auto* file_rows = dynamic_cast<const Hdf5FeatureRows*>(g.features.get());
  const FeatureRowsStats stats = file_rows != nullptr ? file_rows->stats() : FeatureRowsStats{};
  const double hit_rate = static_cast<double>(stats.cache_hits) /
                          static_cast<double>(std::max<int64_t>(stats.cache_hits + stats.cache_misses, 1));
  std::cout << batches << " batches of " << rows_per_batch << " rows (" << selection << ", cache " << cache_mb
            << " MiB): " << rows / gather_seconds << " rows/s, " << gather_seconds / batches << " s per batch, hit rate " << hit_rate << ", cache "
            << stats.cache_bytes / (1024.0 * 1024.0) << " MiB, peak RSS " << rss << " MiB\n";
  if (!json_path.empty()) {
    std::ofstream(json_path) << nlohmann::json{{"graph", graph_path},
                                               {"nodes", g.dataset.num_nodes},
                                               {"edges", g.dataset.num_edges()},
                                               {"features", g.features->cols()},
                                               {"structure_load_seconds", load_seconds},
                                               {"structure_load_peak_rss_mib", load_rss},
                                               {"selection", selection},
                                               {"cache_mb", cache_mb},
                                               {"batches", batches},
                                               {"rows_per_batch", rows_per_batch},
                                               {"rows_per_second", rows / gather_seconds},
                                               {"seconds_per_batch", gather_seconds / batches},
                                               {"cache_hit_rate", hit_rate},
                                               {"peak_rss_mib", rss}}
                                    .dump(2)
                             << "\n";
  }
  return 0;
}
