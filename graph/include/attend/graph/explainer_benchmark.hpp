#pragma once
/// The four synthetic node-classification benchmarks of GNNExplainer (Ying et al.,
/// "GNNExplainer: Generating Explanations for Graph Neural Networks", NeurIPS 2019, Sec. 5
/// and Table 1), with the ground truth of their explanations: which edges form the motifs.
///
///   ba-shapes     Barabasi-Albert base graph, 300 nodes, 5 edges per new node; 80 houses;
///                 4 classes: base 0, house roles 1 (under the roof), 2 (floor), 3 (roof)
///   ba-community  two ba-shapes graphs joined by 350 random edges (the authors' code); 8
///                 classes: role + 4 x community; 10 features per node, N(mu, 0.5) on the
///                 first two (mu = -1 in community 0, +1 in community 1), N(0, 1) on the rest
///   tree-cycles   balanced binary tree of height 8 (511 nodes); 80 six-node cycles; classes
///                 tree 0, cycle 1
///   tree-grid     the same tree; 80 3 x 3 grids; classes tree 0, grid 1
/// Every motif is joined to a distinct random base node by one edge from its anchor, then
/// noise edges are added between random unjoined pairs of nodes, `noise_per_node` times the
/// nodes (the paper's "0.1 N random edges"). Every node but ba-community's has one constant
/// feature, 1 (the paper's constant features: the structure alone decides the class).
/// DEVIATION: the paper says 80 cycles for tree-cycles, its released data has 60 (871
/// nodes); we follow the paper's text. The authors' code adds 1 % of the edges as noise
/// (10 % on tree-grid) and attaches the motifs at evenly spaced base nodes; we follow the
/// paper's text: random base nodes, 0.1 N noise edges by default.

#include <cstdint>
#include <string>
#include <vector>

#include "attend/graph/motif_ground_truth.hpp"
#include "attend/graph/node_dataset.hpp"

namespace attend::graph {

struct ExplainerBenchmarkOptions {
  uint64_t seed = 0;            ///< every random draw (attend::Rng): same seed, same files
  double noise_per_node = 0.1;  ///< noise edges per node (0.1: the paper's 0.1 N), in [0, 1]
  double train_fraction = 0.8;  ///< random split of all nodes: train, validation, rest test
  double val_fraction = 0.1;
};

struct ExplainerBenchmark {
  NodeDataset dataset;     ///< undirected, named after the benchmark, with its split
  MotifGroundTruth truth;  ///< the planted motifs
};

/// "ba-shapes", "ba-community", "tree-cycles", "tree-grid".
std::vector<std::string> explainer_benchmark_names();

/// Build the benchmark `name` (one of explainer_benchmark_names()); throws InputError for an
/// unknown name or options out of range.
ExplainerBenchmark make_explainer_benchmark(const std::string& name, const ExplainerBenchmarkOptions& options);

/// Write the benchmark into the folder `dir` (created when missing; its parent must exist):
/// the plain-text layout that load_node_dataset reads (planetoid_text.hpp) plus the ground
/// truth (motif_ground_truth.hpp), every file atomically. Returns the paths written.
std::vector<std::string> save_explainer_benchmark(const std::string& dir, const ExplainerBenchmark& benchmark);

}  // namespace attend::graph
