#include "attend/graph/explainer_benchmark.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <utility>

#include "attend/core/error.hpp"
#include "attend/core/random.hpp"
#include "attend/graph/balanced_tree.hpp"
#include "attend/graph/barabasi_albert_graph.hpp"
#include "attend/graph/motif_graph.hpp"
#include "attend/graph/planetoid_text.hpp"

namespace attend::graph {

namespace {

constexpr int64_t kBaBaseNodes = 300;      // Ying et al. 2019, Sec. 5: a BA graph on 300 nodes
constexpr int64_t kBaEdgesPerNode = 5;     // the authors' code (m = 5)
constexpr int64_t kTreeHeight = 8;         // an 8-level balanced binary tree
constexpr int64_t kMotifs = 80;            // 80 motifs in every benchmark (the paper's text)
constexpr int64_t kAuthorsCycles = 60;     // the cycles of the authors' released Tree-Cycles (gen_syn4)
constexpr int64_t kAuthorsNoisePercent = 1;  // the authors' perturb(G, 0.01): 1 % of the edges
constexpr double kPaperNoisePerNode = 0.1;   // the paper's 0.1 N random edges
constexpr int64_t kCommunityBridges = 350; // random edges joining the two communities (authors' code)
constexpr int64_t kCommunityFeatures = 10; // the authors' code: 2 informative + 8 noise features

// noise_per_node x the nodes, rounded: the paper's 0.1 N random edges.
void add_noise(MotifGraph& g, double noise_per_node, Rng& rng) {
  add_noise_edges(g, std::llround(noise_per_node * static_cast<double>(g.num_nodes)), rng);
}

MotifGraph ba_shapes_graph(double noise_per_node, Rng& rng) {
  MotifGraph g = MotifGraph::from_base(barabasi_albert_graph(kBaBaseNodes, kBaEdgesPerNode, rng));
  attach_motifs(g, house_motif(), random_base_nodes(kMotifs, kBaBaseNodes, rng));
  add_noise(g, noise_per_node, rng);
  return g;
}

// The paper's text: 80 motifs on random tree nodes, noise_per_node x N noise edges.
MotifGraph tree_graph(const NetworkMotif& motif, double noise_per_node, Rng& rng) {
  const EdgeList tree = balanced_tree(2, kTreeHeight);
  MotifGraph g = MotifGraph::from_base(tree);
  attach_motifs(g, motif, random_base_nodes(kMotifs, tree.num_nodes, rng));
  add_noise(g, noise_per_node, rng);
  return g;
}

// The authors' build_graph(8, "tree", shapes, rdm_basis_plugins=False) then perturb(G, 0.01)
// (GNNExplainer's gengraph.py, gen_syn4 and gen_syn5 as their released data has them): the
// motifs on evenly spaced tree nodes, a second tree edge for about half of the cycles, and
// 1 % of the edges (rounded down) as noise. `join_twice`: the cycles' second tree edge.
MotifGraph authors_tree_graph(const NetworkMotif& motif, int64_t count, bool join_twice, Rng& rng) {
  const EdgeList tree = balanced_tree(2, kTreeHeight);
  MotifGraph g = MotifGraph::from_base(tree);
  const std::vector<int64_t> base_nodes = evenly_spaced_base_nodes(count, tree.num_nodes);
  attach_motifs(g, motif, base_nodes);
  if (join_twice) add_second_joins(g, motif, tree.num_nodes, base_nodes, rng);
  add_noise_edges(g, g.num_edges() * kAuthorsNoisePercent / 100, rng);
  return g;
}

// The second graph's nodes after the first's, its labels shifted by `label_offset`, its motif
// ids after the first's; then `bridges` distinct random edges, each from a node of `a` to one
// of `b`.
MotifGraph join_communities(const MotifGraph& a, const MotifGraph& b, int64_t label_offset, int64_t bridges, Rng& rng) {
  MotifGraph g = a;
  const int64_t offset = a.num_nodes;
  g.num_nodes += b.num_nodes;
  for (int64_t i = 0; i < b.num_nodes; ++i) {
    g.label.push_back(b.label[i] + label_offset);
    g.motif.push_back(b.motif[i] < 0 ? -1 : b.motif[i] + a.num_motifs);
  }
  g.num_motifs += b.num_motifs;
  for (int64_t e = 0; e < b.num_edges(); ++e) {
    g.src.push_back(b.src[e] + offset);
    g.dst.push_back(b.dst[e] + offset);
    g.is_motif_edge.push_back(b.is_motif_edge[e]);
  }
  std::set<std::pair<int64_t, int64_t>> joined;
  while (static_cast<int64_t>(joined.size()) < bridges) {  // the authors' join_graph: a node of each side
    const auto u = static_cast<int64_t>(rng.below(static_cast<uint64_t>(a.num_nodes)));
    const auto v = offset + static_cast<int64_t>(rng.below(static_cast<uint64_t>(b.num_nodes)));
    if (!joined.insert({u, v}).second) continue;  // drawn before: the same edge
    g.src.push_back(u);
    g.dst.push_back(v);
    g.is_motif_edge.push_back(false);
  }
  return g;
}

// One feature per node, 1: the constant features of the structural benchmarks.
SparseMatrix constant_features(int64_t n) {
  std::vector<int64_t> rows(static_cast<std::size_t>(n)), cols(static_cast<std::size_t>(n), 0);
  for (int64_t i = 0; i < n; ++i) rows[i] = i;
  return SparseMatrix::from_triplets(n, 1, rows, cols, std::vector<float>(static_cast<std::size_t>(n), 1.0f));
}

// BA-Community features, as the authors' GaussianFeatureGen: node i of community c draws
// feature 0 and 1 from N(-1 or +1, variance 0.5) and features 2..9 from N(0, 1).
SparseMatrix community_features(int64_t first_community_size, int64_t n, Rng& rng) {
  std::vector<int64_t> rows, cols;
  std::vector<float> values;
  const float spread = std::sqrt(0.5f);
  for (int64_t i = 0; i < n; ++i) {
    const float mean = i < first_community_size ? -1.0f : 1.0f;
    for (int64_t k = 0; k < kCommunityFeatures; ++k) {
      rows.push_back(i);
      cols.push_back(k);
      values.push_back(k < 2 ? mean + spread * rng.normal() : rng.normal());
    }
  }
  return SparseMatrix::from_triplets(n, kCommunityFeatures, rows, cols, values);
}

ExplainerBenchmark to_benchmark(const std::string& name, const MotifGraph& g, SparseMatrix features,
                                const ExplainerBenchmarkOptions& o, Rng& rng) {
  ExplainerBenchmark b;
  NodeDataset& d = b.dataset;
  d.name = name;
  d.num_nodes = g.num_nodes;
  d.features = std::move(features);
  d.labels = g.label;
  for (int64_t y : g.label) d.num_classes = std::max(d.num_classes, y + 1);
  d.edge_src = g.src;
  d.edge_dst = g.dst;
  split_at_random(d, o.train_fraction, o.val_fraction, rng.split());
  d.validate();
  b.truth.node_motif = g.motif;
  for (int64_t e = 0; e < g.num_edges(); ++e) {
    if (!g.is_motif_edge[e]) continue;
    b.truth.edge_src.push_back(g.src[e]);
    b.truth.edge_dst.push_back(g.dst[e]);
  }
  return b;
}

}  // namespace

std::vector<std::string> explainer_benchmark_names() { return {"ba-shapes", "ba-community", "tree-cycles", "tree-grid"}; }

std::vector<std::string> benchmark_recipe_names() { return {"paper", "authors"}; }

BenchmarkRecipe benchmark_recipe(const std::string& name) {
  if (name == "paper") return BenchmarkRecipe::kPaper;
  if (name == "authors") return BenchmarkRecipe::kAuthors;
  throw InputError("unknown benchmark recipe '" + name + "'; known: paper, authors");
}

void check_explainer_benchmark(const std::string& name, const ExplainerBenchmarkOptions& o) {
  const std::vector<std::string> names = explainer_benchmark_names();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    std::string known;
    for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
    throw InputError("unknown benchmark '" + name + "'; known: " + known);
  }
  const bool authors = o.recipe == BenchmarkRecipe::kAuthors;
  if (authors && o.noise_per_node) {
    throw InputError("the authors recipe adds 1 % of the edges as noise; the noise per node is the paper recipe's");
  }
  const double noise_per_node = o.noise_per_node.value_or(kPaperNoisePerNode);
  if (!(noise_per_node >= 0.0 && noise_per_node <= 1.0)) {
    throw InputError("the noise edges per node must be in [0, 1], got " + std::to_string(noise_per_node));
  }
  if (authors && (name == "ba-shapes" || name == "ba-community")) {
    throw InputError("the authors recipe builds tree-cycles and tree-grid; " + name + " has the paper recipe only");
  }
}

ExplainerBenchmark make_explainer_benchmark(const std::string& name, const ExplainerBenchmarkOptions& o) {
  check_explainer_benchmark(name, o);
  const bool authors = o.recipe == BenchmarkRecipe::kAuthors;
  const double noise_per_node = o.noise_per_node.value_or(kPaperNoisePerNode);
  Rng rng(o.seed);
  if (name == "ba-shapes") {
    const MotifGraph g = ba_shapes_graph(noise_per_node, rng);
    return to_benchmark(name, g, constant_features(g.num_nodes), o, rng);
  }
  if (name == "ba-community") {
    const MotifGraph first = ba_shapes_graph(noise_per_node, rng);
    const MotifGraph second = ba_shapes_graph(noise_per_node, rng);
    const int64_t roles = house_motif().num_roles() + 1;
    const MotifGraph g = join_communities(first, second, roles, kCommunityBridges, rng);
    return to_benchmark(name, g, community_features(first.num_nodes, g.num_nodes, rng), o, rng);
  }
  // tree-cycles or tree-grid: check_explainer_benchmark refused every other name.
  const bool cycles = name == "tree-cycles";
  const NetworkMotif motif = cycles ? cycle_motif(6) : grid_motif(3);
  const MotifGraph g = authors ? authors_tree_graph(motif, cycles ? kAuthorsCycles : kMotifs, cycles, rng)
                               : tree_graph(motif, noise_per_node, rng);
  return to_benchmark(name, g, constant_features(g.num_nodes), o, rng);
}

std::vector<std::string> save_explainer_benchmark(const std::string& dir, const ExplainerBenchmark& b) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (fs::exists(dir, error) && !fs::is_directory(dir, error)) throw InputError(dir, 0, "exists and is not a folder");
  if (!fs::is_directory(dir, error) && !fs::create_directory(dir, error)) {
    throw InputError(dir, 0, "cannot create the folder: " + error.message());
  }
  std::vector<std::string> written = save_planetoid_text(dir, b.dataset);
  save_motif_ground_truth(dir, b.truth);
  written.push_back((fs::path(dir) / "motif_edges.txt").string());
  written.push_back((fs::path(dir) / "motif_nodes.txt").string());
  return written;
}

}  // namespace attend::graph
