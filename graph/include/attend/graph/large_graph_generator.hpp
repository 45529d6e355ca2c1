#pragma once
/// A synthetic node-classification graph of any size, written straight to an attend.graph
/// file with dense features (graph_store.hpp) without holding the feature matrix: the
/// benchmark graphs shaped like ogbn-products (2,449,029 nodes, 61,859,140 edges, 100
/// features, 47 classes) and larger ones that do not fit in memory.
///
/// The labels are learnable from features and structure, so training curves mean something
/// (a contextual stochastic block model, Deshpande et al., "Contextual Stochastic Block
/// Models", NeurIPS 2018, with Gaussian features):
///  * node i's class y_i is uniform over the C classes;
///  * its features are x_i = signal * mu_{y_i} + eps_i, with class means mu_c and noise eps_i
///    standard normal [F];
///  * each of the E undirected edges joins a uniform node u to, with probability
///    `homophily`, a uniform node of u's class, else a uniform node (never u itself);
///    duplicate pairs may occur (the graph views drop them);
///  * the splits are random fractions of the nodes (split_at_random).
/// Features are centred Gaussians: train with normalize_features off.
///
/// Every value depends only on the seed: node i's features come from a generator keyed by
/// (seed, i), so the file is the same for any thread count.

#include <cstdint>
#include <functional>
#include <string>

#include "attend/graph/graph_store.hpp"

namespace attend::graph {

struct LargeGraphOptions {
  int64_t nodes = 2449029;
  int64_t edges = 61859140;  ///< undirected pairs, each stored once (OGB's count for ogbn-products)
  int64_t features = 100;
  int64_t classes = 47;
  double homophily = 0.8;     ///< probability that an edge stays inside its source's class
  double signal = 0.25;       ///< scale of the class means in the features
  double train_fraction = 0.08, val_fraction = 0.02;  ///< ogbn-products: 8 % / 2 % / 90 %
  uint64_t seed = 0;
  GraphFileOptions file{FeatureLayout::kDense, 64, false};  ///< the layout must be dense
};

/// What was written.
struct LargeGraphSummary {
  int64_t nodes = 0, edges = 0, features = 0, classes = 0;
  int64_t train = 0, val = 0, test = 0;
};

/// Called with a stage ("edges", "features") and how far it is (done of total).
using GenerateProgress = std::function<void(const std::string& stage, int64_t done, int64_t total)>;

/// Write the graph to `path` (atomically). Memory: the edge arrays (16 bytes per edge), a few
/// [N] arrays and one block of feature rows. Features are generated in parallel over rows
/// (OpenMP). Throws attend::InputError for sizes below 1 (edges: 0), fewer than 2 nodes
/// when there are edges, a probability outside [0, 1], split fractions that do not fit, or a
/// layout other than dense.
LargeGraphSummary write_large_graph(const std::string& path, const LargeGraphOptions& options,
                                    const GenerateProgress& progress = {});

}  // namespace attend::graph
