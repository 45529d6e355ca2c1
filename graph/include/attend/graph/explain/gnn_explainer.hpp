#pragma once
/// GNNExplainer (Ying et al., "GNNExplainer: Generating Explanations for Graph Neural
/// Networks", NeurIPS 2019, Sec. 4): for one target node, a soft mask on the edges of its
/// computation graph and a mask on the input feature columns, learned by maximising the
/// log-probability the masked model gives the explained class, with size and entropy
/// penalties that push the masks towards small and near-binary.
///
/// Defaults and details are PyTorch Geometric's (torch_geometric/explain/algorithm/
/// gnn_explainer.py, edge mask type "object", node mask type "common_attributes"):
/// 100 epochs of Adam at lr 0.01; edge mask sigmoid(p_e) with p_e ~ N(0, (gain_relu *
/// sqrt(2 / (2 N)))^2), N the computation graph's nodes; feature mask sigmoid(q_f), q_f ~
/// N(0, 0.1^2); loss = -log p(class | masked model) + 0.005 sum(m_e) + 1.0 mean(H(m_e)) +
/// 1.0 mean(m_f) + 0.1 mean(H(m_f)) with H(m) = -m log(m + 1e-15) - (1 - m) log(1 - m + 1e-15),
/// the penalties over the "hard" entries only: those whose gradient is non-zero in the first
/// epoch (taken without penalties), which also enter the penalties from the second epoch on.
/// The edge mask multiplies messages through GraphContext::with_edge_mask (PyG's
/// explain_message, added self-loops unmasked); the feature mask multiplies the input columns
/// of the computation graph's features, densified. Returned masks are sigmoid(parameters)
/// with the entries outside the hard masks set to 0, as PyG's post-processing.
///
/// attend's addition, `initial_mask` M0 in (0, 1): every edge logit starts at log(M0 / (1 - M0))
/// without noise, so the first mask is M0 on every edge (the same remedy as PgExplainer's
/// initial_mask, pg_explainer.hpp). On a model whose prediction is a step in the mask's scale
/// (the benchmark presets' GCN, which sums unnormalised messages: docs/results.md, session
/// 13) PyG's start, masks near 0.5, sits on the flat part of the step where the prediction
/// term has no gradient; M0 = 0.9 starts where the prediction holds. The authors' code
/// (RexYing/gnn-model-explainer, explain.py) starts the logits at N(1, std^2), masks near 0.73.
///
/// DEVIATION: PyG is usually run on the whole graph; we run on the target's computation
/// graph (computation_graph.hpp), which gives the target the same logits, so only N in the
/// edge initialisation differs. Each epoch is a one-copy TargetForward pass
/// (target_forward.hpp: each layer only where the target reads it, so the layer must read
/// only its in-neighbours); an edge no layer reads gets the zero gradient it gets on the
/// whole computation graph. A mean over no hard entries is taken as 0 (PyG gives NaN).

#include <cstdint>
#include <vector>

#include "attend/core/autodiff.hpp"
#include "attend/graph/explain/computation_graph.hpp"
#include "attend/graph/node_classifier.hpp"
#include "attend/graph/node_training.hpp"

namespace attend::graph {

struct GnnExplainerOptions {
  int epochs = 100;
  double lr = 0.01;               ///< Adam's learning rate (other Adam settings: PyTorch's)
  double edge_size = 0.005;       ///< times the sum of the hard edge mask entries
  double edge_entropy = 1.0;      ///< times the mean entropy of the hard edge mask entries
  double feature_size = 1.0;      ///< times the mean of the hard feature mask entries
  double feature_entropy = 0.1;   ///< times the mean entropy of the hard feature mask entries
  double eps = 1e-15;             ///< inside the entropy's logarithms
  bool learn_feature_mask = true;  ///< false: edges only (PyG's node_mask_type None)
  double initial_mask = 0.0;      ///< 0: PyG's random start; in (0, 1): every edge mask starts at it (above)
  uint64_t seed = 0;              ///< mask initialisation; node v draws from mix64(seed ^ v)
};

/// The masks GNNExplainer learned for one node.
struct GnnExplanation {
  int64_t node = -1;             ///< dataset node id
  int64_t explained_class = -1;
  /// The explained edges of the computation graph (ComputationGraph::explained), ordered by
  /// full-graph plain edge id: plain edge id, endpoints (dataset node ids), mask in [0, 1].
  std::vector<int64_t> edge_id, edge_src, edge_dst;  ///< [E_c]
  std::vector<float> edge_score;                     ///< [E_c]
  std::vector<float> feature_score;  ///< [F] mask per feature column; empty when not learned
  double loss = 0.0;                 ///< the last epoch's loss, penalties included
};

/// Explain the target of `cg` (built from `data` by computation_graph) for `explained_class`.
/// `model` must be in evaluation mode; its parameters receive no gradient (their
/// requires_grad is off during the call and restored, so the model must not be used by
/// another thread meanwhile). Deterministic for a seed and bit-identical for any thread
/// count. Throws attend::Error on a class out of range, an initial mask outside [0, 1) or a model
/// in training mode.
GnnExplanation gnn_explainer(const NodeClassifier& model, const PreparedNodeData& data, const ComputationGraph& cg,
                             int64_t explained_class, const GnnExplainerOptions& options = {});

/// Each of `nodes` explained independently (its own computation graph, masks and optimizer;
/// the same result as alone) for `classes[t]`, or its predicted class where `classes` is
/// empty or holds -1. Sets `model` to evaluation mode.
std::vector<GnnExplanation> gnn_explain_nodes(NodeClassifier& model, const PreparedNodeData& data,
                                              const std::vector<int64_t>& nodes, const std::vector<int64_t>& classes,
                                              const GnnExplainerOptions& options = {});

/// GNNExplainer's penalty on mask logits p [K] at the entries `hard`: with m = sigmoid(p),
///   size * (sum_over ? sum : mean)(m) + entropy * mean(-m log(m + eps) - (1 - m) log(1 - m + eps)),
/// a scalar Var, differentiable in p (0 when `hard` is empty). Summed in double.
Var mask_penalty(const Var& logits, const std::vector<int64_t>& hard, double size, bool sum_over, double entropy,
                 double eps);

}  // namespace attend::graph
