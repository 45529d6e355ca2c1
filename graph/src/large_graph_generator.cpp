#include "attend/graph/large_graph_generator.hpp"

#include <cmath>

#include "attend/core/error.hpp"
#include "attend/core/random.hpp"

namespace attend::graph {

namespace {

/// Streams of the generator, each keyed by the seed and a purpose.
enum Stream : uint64_t { kLabels = 1, kMeans = 2, kEdges = 3, kSplits = 4, kFeatures = 5 };

uint64_t stream_seed(uint64_t seed, uint64_t stream) { return mix64(seed ^ mix64(stream)); }

void check_options(const LargeGraphOptions& o) {
  const auto bad = [](const std::string& what) { throw InputError("large graph: " + what); };
  if (o.nodes < 1 || o.features < 1 || o.classes < 1 || o.edges < 0) {
    bad("need at least 1 node, feature and class and no negative edge count");
  }
  if (o.edges > 0 && o.nodes < 2) bad("edges need at least 2 nodes");
  if (!(o.homophily >= 0.0 && o.homophily <= 1.0)) bad("homophily must be in [0, 1]");
  if (!(o.signal >= 0.0 && std::isfinite(o.signal))) bad("signal must be finite and >= 0");
  if (o.file.layout != FeatureLayout::kDense) bad("features are written in the dense layout only");
}

/// The other endpoint of an edge from `u`: a node of u's class with probability `homophily`,
/// else any node; never u. `members` lists the nodes of each class, `first` where each class
/// starts in it ([C + 1]).
int64_t partner(int64_t u, int64_t label, const std::vector<int64_t>& members, const std::vector<int64_t>& first,
                int64_t n, double homophily, Rng& rng) {
  const int64_t class_size = first[label + 1] - first[label];
  const bool same_class = class_size > 1 && rng.uniform() < homophily;
  for (;;) {
    const int64_t v = same_class ? members[first[label] + static_cast<int64_t>(rng.below(class_size))]
                                 : static_cast<int64_t>(rng.below(static_cast<uint64_t>(n)));
    if (v != u) return v;
  }
}

}  // namespace

LargeGraphSummary write_large_graph(const std::string& path, const LargeGraphOptions& o,
                                    const GenerateProgress& progress) {
  check_options(o);
  const auto report = [&](const char* stage, int64_t done, int64_t total) {
    if (progress) progress(stage, done, total);
  };
  NodeDataset d;
  d.name = "large-graph";
  d.num_nodes = o.nodes;
  d.num_classes = o.classes;
  d.labels.resize(static_cast<std::size_t>(o.nodes));
  Rng label_rng(stream_seed(o.seed, kLabels));
  for (int64_t& y : d.labels) y = static_cast<int64_t>(label_rng.below(static_cast<uint64_t>(o.classes)));

  // The nodes of each class, grouped (a counting sort).
  std::vector<int64_t> first(static_cast<std::size_t>(o.classes + 1), 0);  // [C + 1]
  for (int64_t y : d.labels) ++first[static_cast<std::size_t>(y + 1)];
  for (int64_t c = 0; c < o.classes; ++c) first[c + 1] += first[c];
  std::vector<int64_t> members(static_cast<std::size_t>(o.nodes));  // [N]
  {
    std::vector<int64_t> next(first.begin(), first.end() - 1);
    for (int64_t i = 0; i < o.nodes; ++i) members[next[d.labels[i]]++] = i;
  }

  d.edge_src.resize(static_cast<std::size_t>(o.edges));
  d.edge_dst.resize(static_cast<std::size_t>(o.edges));
  Rng edge_rng(stream_seed(o.seed, kEdges));
  const int64_t report_every = std::max<int64_t>(o.edges / 10, 1);
  for (int64_t e = 0; e < o.edges; ++e) {
    const auto u = static_cast<int64_t>(edge_rng.below(static_cast<uint64_t>(o.nodes)));
    d.edge_src[e] = u;
    d.edge_dst[e] = partner(u, d.labels[u], members, first, o.nodes, o.homophily, edge_rng);
    if ((e + 1) % report_every == 0) report("edges", e + 1, o.edges);
  }
  members = {};
  split_at_random(d, o.train_fraction, o.val_fraction, stream_seed(o.seed, kSplits));

  Tensor means({o.classes, o.features});  // [C, F], signal * mu_c
  Rng mean_rng(stream_seed(o.seed, kMeans));
  for (float& v : means) v = static_cast<float>(o.signal) * mean_rng.normal();
  const uint64_t feature_seed = stream_seed(o.seed, kFeatures);
  const FeatureBlockSource rows = [&](int64_t begin, int64_t count) {
    Tensor block({count, o.features});  // [count, F]
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < count; ++r) {
      const int64_t i = begin + r;
      Rng rng(mix64(feature_seed ^ static_cast<uint64_t>(i)));
      const float* mean = means.data() + d.labels[i] * o.features;
      float* x = block.data() + r * o.features;
      for (int64_t c = 0; c < o.features; ++c) x[c] = mean[c] + rng.normal();
    }
    report("features", begin + count, o.nodes);
    return block;
  };
  save_node_dataset_streaming(path, d, o.features, rows, o.file);

  LargeGraphSummary s;
  s.nodes = o.nodes;
  s.edges = o.edges;
  s.features = o.features;
  s.classes = o.classes;
  s.train = static_cast<int64_t>(d.train.size());
  s.val = static_cast<int64_t>(d.val.size());
  s.test = static_cast<int64_t>(d.test.size());
  return s;
}

}  // namespace attend::graph
