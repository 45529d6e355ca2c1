#pragma once
/// Explaining one node's prediction: the explained quantity (explained_quantity.hpp) on the
/// node's computation graph (computation_graph.hpp), attributed to the graph's edges and/or
/// to the input features by one method (explain_method.hpp).

#include <cmath>
#include <cstdint>
#include <vector>

#include "attend/core/quadrature.hpp"
#include "attend/graph/explain/attention_rollout.hpp"
#include "attend/graph/explain/explain_method.hpp"
#include "attend/graph/explain/gnn_explainer.hpp"
#include "attend/graph/node_classifier.hpp"
#include "attend/graph/node_training.hpp"

namespace attend::graph {

class PgExplainer;

/// shapley's permutations per node by default (docs/results.md "Shapley values (issue #14,
/// session 15)": the convergence check that chose it).
inline constexpr int64_t kDefaultShapleySamples = 1024;

struct ExplainOptions {
  ExplainMethod method = ExplainMethod::kIntegratedGradients;
  int steps = 50;                            ///< integrated gradients: quadrature points
  QuadratureKind rule = QuadratureKind::kMidpoint;  ///< integrated gradients
  /// integrated gradients: refine the rule per node while |gap| > max_gap |f(x) - f(0)|, up to
  /// max_steps points (integrated_gradients.hpp: PathSteps); 0: the `steps` points only
  double max_gap = 0.0;
  int max_steps = 0;
  HeadReduction heads = HeadReduction::kMean;  ///< attention
  int64_t class_id = -1;                     ///< the explained class; -1: the predicted one
  uint64_t seed = 0;                         ///< gnnexplainer: mask initialisation
  /// gnnexplainer: epochs, lr, penalties and initial mask (its seed and learn_feature_mask
  /// are set from `seed` and the dataset)
  GnnExplainerOptions gnn;
  /// pgexplainer: the explainer, trained for this model and data (pg_explainer.hpp); required
  const PgExplainer* pg_explainer = nullptr;
  /// occlusion, shapley: take each edge away (shapley: let it join) with every edge joining its
  /// endpoints in either direction (the undirected edge); false: one directed edge at a time
  /// (occlusion.hpp, edge_groups.hpp)
  bool symmetric = false;
  /// shapley: permutations per node, even (antithetic pairs; shapley_sampling.hpp); its orders
  /// are drawn from `seed` and the node
  int64_t samples = kDefaultShapleySamples;
};

struct NodeExplanation {
  int64_t node = -1;          ///< dataset node id
  int64_t explained_class = -1;
  int64_t predicted_class = -1;
  double value = NAN;         ///< f: log p(explained class) on the computation graph
  /// The explained edges of the computation graph (pgexplainer with scored_edges "subgraph":
  /// every edge of the computation graph's subgraph but self-loops; "khop": also the edges
  /// joining two nodes L hops away), ordered by full-graph plain edge id.
  std::vector<int64_t> edge_id, edge_src, edge_dst;  ///< [E_c] plain edge id, endpoints (dataset ids)
  std::vector<float> edge_score;     ///< [E_c]
  /// attention: each layer's weights of the explained edges before the heads are reduced,
  /// [E_c, H_l] per layer (0 where a layer does not attend over an edge); empty otherwise.
  std::vector<Tensor> attention;
  std::vector<float> feature_score;  ///< [F] summed over the computation graph's nodes; empty: none
  /// Integrated gradients on features: f(0 features) and sum of attributions - (f(x) - f(0));
  /// shapley: v(no feature) and its efficiency gap (shapley_sampling.hpp).
  double feature_baseline_value = NAN, feature_completeness_gap = NAN;
  int feature_steps = 0;  ///< quadrature points used on the features (0: none)
  /// Integrated gradients on edges: f(mask 0) and sum of attributions over every plain edge
  /// of the computation graph - (f(mask 1) - f(mask 0)); shapley: f with the explained edges'
  /// mask 0 and the efficiency gap, the sum over players (a symmetric group once).
  double edge_baseline_value = NAN, edge_completeness_gap = NAN;
  int edge_steps = 0;  ///< quadrature points used on the edges (0: none)
};

/// Explain dataset node `node` of `data` with `model` (set to evaluation mode). Throws
/// attend::InputError when the method does not apply to the model (attention without
/// attention layers) or the class is out of range.
NodeExplanation explain_node(NodeClassifier& model, const PreparedNodeData& data, int64_t node,
                             const ExplainOptions& options);

/// Whether a method scores features (every method scores edges): all but attention, degree
/// and pgexplainer, when the dataset has features (gnnexplainer: its feature mask).
bool scores_features(ExplainMethod method, const NodeDataset& dataset);

}  // namespace attend::graph
