/// What PGExplainer's MLP (graph/explain/pg_explainer.hpp) learns on a benchmark graph with a
/// trained model (issue #14, session 13; docs/results.md "PGExplainer's stability and
/// Tree-Grid"). On a dataset folder of `attend generate` (motif_edges.txt beside it) and a
/// checkpoint, for the given nodes (--nodes 3,17,... or --nodes val: the validation nodes in a
/// motif) it prints
///   - the mean probability of each node's predicted class under one mask value on every
///     explained edge (0 .. 1), with only the motif's explained edges kept, and with them removed:
///     whether the mask moves the prediction and whether the motif alone suffices;
///   - after each training epoch (PGExplainer trained on these nodes): the three loss terms under
///     the noise-free mask sigmoid(logit / t1), the mean logit of motif and other scored edges,
///     and the AUC of the logits against the motif edges over every scored directed edge, pooled.
///
///   probe_pg_explainer --data /tmp/auc/tree-grid-0 --checkpoint /tmp/auc/tree-grid-0/gcn.h5 --nodes val

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "attend/core/builtin_layers.hpp"
#include "attend/core/registry.hpp"
#include "attend/graph/builtin_layers.hpp"
#include "attend/graph/explain/computation_graph.hpp"
#include "attend/graph/explain/explained_quantity.hpp"
#include "attend/graph/explain/pg_explainer.hpp"
#include "attend/graph/explain/roc_auc.hpp"
#include "attend/graph/explain/target_forward.hpp"
#include "attend/graph/motif_ground_truth.hpp"
#include "attend/graph/trained_node_model.hpp"

using namespace attend;
using namespace attend::graph;

namespace {

/// One probed node: its computation graph, pass, explained class and which local plain edges
/// lie in a motif.
struct ProbedNode {
  ComputationGraph cg;
  std::unique_ptr<TargetForward> pass;
  int64_t explained_class = -1;
  std::vector<bool> in_motif;  ///< [E_sub]
};

/// p(explained class) of `n` with mask value keep(e) on each explained edge e (1 elsewhere), and
/// whether the argmax stays the explained class.
template <typename Keep>
std::pair<double, bool> masked_probability(const NodeClassifier& model, const ProbedNode& n, Keep keep) {
  NoGradGuard no_grad;
  Tensor mask({n.pass->num_edges()}, 1.0f);  // [E_sub]
  for (int64_t e : n.cg.explained) mask[e] = keep(e);
  const Tensor logits = n.pass->logits(model, n.pass->features(), Var(mask)).value();  // [1, C]
  int64_t best = 0;
  for (int64_t c = 1; c < logits.dim(1); ++c) best = logits[c] > logits[best] ? c : best;
  const double log_p = target_log_probability(model, *n.pass, n.pass->features(), Var(mask), n.explained_class).value().item();
  return {std::exp(log_p), best == n.explained_class};
}

}  // namespace

int main(int argc, char** argv) {
  std::string data_path, checkpoint, nodes_arg, scored = "explained", update = "node";
  PgExplainerOptions options;
  CLI::App app{"What PGExplainer's MLP learns, epoch by epoch, on a benchmark graph"};
  app.add_option("--data", data_path, "dataset folder of 'attend generate'")->required();
  app.add_option("--checkpoint", checkpoint, "the model trained on it")->required();
  app.add_option("--nodes", nodes_arg, "comma-separated node ids, or val: the validation nodes in a motif")->required();
  app.add_option("--epochs", options.epochs)->capture_default_str();
  app.add_option("--lr", options.lr)->capture_default_str();
  app.add_option("--edge-size", options.edge_size)->capture_default_str();
  app.add_option("--edge-entropy", options.edge_entropy)->capture_default_str();
  app.add_option("--temperature-start", options.temperature_start)->capture_default_str();
  app.add_option("--temperature-end", options.temperature_end)->capture_default_str();
  app.add_option("--initial-mask", options.initial_mask)->capture_default_str();
  app.add_option("--gradient-clip", options.gradient_clip)->capture_default_str();
  app.add_option("--update", update)->check(CLI::IsMember({"node", "epoch"}))->capture_default_str();
  app.add_option("--scored-edges", scored)->check(CLI::IsMember({"explained", "subgraph"}))->capture_default_str();
  app.add_flag("--symmetric-mask", options.symmetric_mask);
  app.add_option("--seed", options.seed)->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  options.update = update == "epoch" ? PgUpdate::kPerEpoch : PgUpdate::kPerNode;
  options.scored_edges = scored == "subgraph" ? PgScoredEdges::kSubgraph : PgScoredEdges::kExplained;

  register_core_layers(Registry::global());
  register_graph_layers(Registry::global());
  TrainedNodeModel trained = load_trained_node_model(data_path, checkpoint, Registry::global());
  NodeClassifier& model = *trained.loaded.model;
  model.eval();
  const PreparedNodeData& data = trained.data;
  const MotifGroundTruth truth = load_motif_ground_truth(data_path, data.dataset.num_nodes);
  std::set<std::pair<int64_t, int64_t>> motif_edges;  // both directions
  for (int64_t m = 0; m < truth.num_edges(); ++m) {
    motif_edges.insert({truth.edge_src[m], truth.edge_dst[m]});
    motif_edges.insert({truth.edge_dst[m], truth.edge_src[m]});
  }
  std::vector<int64_t> nodes;
  if (nodes_arg == "val") {
    for (int64_t v : data.dataset.val) {
      if (truth.node_motif[v] >= 0) nodes.push_back(v);
    }
    std::sort(nodes.begin(), nodes.end());
  } else {
    std::stringstream list(nodes_arg);
    for (std::string id; std::getline(list, id, ',');) nodes.push_back(std::stoll(id));
  }

  std::vector<ProbedNode> probed;
  probed.reserve(nodes.size());  // each pass keeps the address of its node's cg
  double explained_edges = 0.0, motif_explained = 0.0;
  for (int64_t v : nodes) {
    ProbedNode& n = probed.emplace_back();
    n.cg = computation_graph(data, v, model.message_passing_hops());
    n.pass = std::make_unique<TargetForward>(model, n.cg, 1);
    n.explained_class = predicted_class(model, *n.pass);
    const GraphView& plain = n.cg.data.graph.plain();
    for (int64_t e = 0; e < plain.num_edges(); ++e) {
      n.in_motif.push_back(motif_edges.count({n.cg.nodes[plain.src[e]], n.cg.nodes[plain.dst[e]]}) > 0);
    }
    explained_edges += static_cast<double>(n.cg.explained.size());
    for (int64_t e : n.cg.explained) motif_explained += n.in_motif[e] ? 1.0 : 0.0;
  }
  const auto count = static_cast<double>(probed.size());
  std::printf("%zu nodes: %.1f explained edges per node, %.1f of them in the motif\n", probed.size(),
              explained_edges / count, motif_explained / count);
  for (double value : {0.0, 0.2, 0.4, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0}) {
    double p = 0.0;
    for (const ProbedNode& n : probed) p += masked_probability(model, n, [&](int64_t) { return value; }).first;
    std::printf("mask %.2f on every explained edge: mean p(predicted class) %.3f\n", value, p / count);
  }
  for (bool keep_motif : {true, false}) {
    double p = 0.0;
    int kept = 0;
    for (const ProbedNode& n : probed) {
      const auto [pn, same] = masked_probability(model, n, [&](int64_t e) { return n.in_motif[e] == keep_motif ? 1.0 : 0.0; });
      p += pn;
      kept += same;
    }
    std::printf("%s: mean p %.3f, prediction kept for %d of %zu\n",
                keep_motif ? "only the motif's explained edges" : "the motif's explained edges removed", p / count, kept,
                probed.size());
  }

  PgExplainer explainer(model, data, options);
  auto report = [&](int epoch, double sampled_loss) {
    NoGradGuard no_grad;
    std::vector<float> logits_seen;
    std::vector<bool> positive;
    double prediction = 0.0, size = 0.0, entropy = 0.0, motif_logit = 0.0, other_logit = 0.0, motif = 0.0, other = 0.0;
    for (const ProbedNode& n : probed) {
      const std::vector<int64_t> edges = explainer.scored_edges(n.cg);
      const Tensor logits = explainer.edge_logits(n.cg, edges).value();  // [K]
      Tensor mask({n.pass->num_edges()}, 1.0f);                           // [E_sub]
      double node_entropy = 0.0;
      for (std::size_t k = 0; k < edges.size(); ++k) {
        const double m = 1.0 / (1.0 + std::exp(-logits[k] / options.temperature_end));
        mask[edges[k]] = static_cast<float>(m);
        size += options.edge_size * m;
        const double c = std::clamp(m, 1e-15, 1.0 - 1e-15);
        node_entropy += -c * std::log(c) - (1.0 - c) * std::log(1.0 - c);
        logits_seen.push_back(logits[k]);
        positive.push_back(n.in_motif[edges[k]]);
        (n.in_motif[edges[k]] ? motif_logit : other_logit) += logits[k];
        (n.in_motif[edges[k]] ? motif : other) += 1.0;
      }
      entropy += options.edge_entropy * node_entropy / std::max<double>(1.0, static_cast<double>(edges.size()));
      prediction -= target_log_probability(model, *n.pass, n.pass->features(), Var(mask), n.explained_class).value().item();
    }
    std::printf("epoch %3d  sampled loss %.4f | noise-free: -log p %.4f, size %.4f, entropy %.4f | mean logit motif "
                "%.2f, other %.2f | AUC %.3f\n",
                epoch, sampled_loss, prediction / count, size / count, entropy / count, motif_logit / std::max(1.0, motif),
                other_logit / std::max(1.0, other), roc_auc(logits_seen, positive));
    std::fflush(stdout);
  };
  report(0, NAN);
  explainer.train(nodes, report);
  return 0;
}
