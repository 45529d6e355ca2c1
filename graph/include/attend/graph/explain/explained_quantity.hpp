#pragma once
/// The quantity an explanation of a node classifier explains: the log-probability that the
/// model (in evaluation mode) gives the explained class of each target node,
///   f(x, G) = sum over targets t of log softmax(model(x, G))[t, c_t],
/// by default with c_t the predicted class. Targets of one call lie in disjoint copies of a
/// graph (target_forward.hpp), so each term depends on its own copy only and
/// one backward gives every copy's gradient.

#include <cstdint>
#include <vector>

#include "attend/graph/explain/target_forward.hpp"
#include "attend/graph/node_classifier.hpp"
#include "attend/graph/node_training.hpp"

namespace attend::graph {

/// f as a scalar Var (recorded when an input requires a gradient). `model` must be in
/// evaluation mode (no dropout).
Var target_log_probability(const NodeClassifier& model, const NodeFeatures& x, const GraphContext& graph,
                           const std::vector<int64_t>& rows, const std::vector<int64_t>& classes);

/// f on a TargetForward pass (the target of every copy, class `cls`) at the input `x`
/// [copies n, F] and, when defined, the edge mask `edge_mask` [copies E].
Var target_log_probability(const NodeClassifier& model, const TargetForward& pass, const NodeFeatures& x,
                           const Var& edge_mask, int64_t cls);

/// f of the logits [copies, C] of a TargetForward pass: the sum over copies of log softmax's
/// entry `cls`.
Var class_log_probability(const Var& logits, int64_t cls);
/// Each copy's term of f, log softmax(logits)[k, cls], from the logits [copies, C] of a
/// TargetForward pass (no gradient): the values of the copies of a batch of masked inputs.
std::vector<double> per_copy_log_probability(const Tensor& logits, int64_t cls);
/// f at the computation graph's own input (TargetForwards::input_logits; no gradient).
double input_log_probability(TargetForwards& passes, int64_t cls);

/// The arg-max class of node `row` of `data` (no gradient).
int64_t predicted_class(const NodeClassifier& model, const PreparedNodeData& data, int64_t row);
/// The arg-max class of the target of a one-copy pass, at its own input (no gradient).
int64_t predicted_class(const NodeClassifier& model, const TargetForward& pass);
/// The arg-max class of the target at the computation graph's own input (input_logits).
int64_t predicted_class(TargetForwards& passes);

}  // namespace attend::graph
