#pragma once
/// The quantity an explanation of a node classifier explains: the log-probability that the
/// model (in evaluation mode) gives the explained class of each target node,
///   f(x, G) = sum over targets t of log softmax(model(x, G))[t, c_t],
/// by default with c_t the predicted class. Targets of one call lie in disjoint copies of a
/// graph (computation_graph.hpp: replicate), so each term depends on its own copy only and
/// one backward gives every copy's gradient.

#include <cstdint>
#include <vector>

#include "attend/graph/node_classifier.hpp"
#include "attend/graph/node_training.hpp"

namespace attend::graph {

/// f as a scalar Var (recorded when an input requires a gradient). `model` must be in
/// evaluation mode (no dropout).
Var target_log_probability(const NodeClassifier& model, const NodeFeatures& x, const GraphContext& graph,
                           const std::vector<int64_t>& rows, const std::vector<int64_t>& classes);

/// The arg-max class of node `row` of `data` (no gradient).
int64_t predicted_class(const NodeClassifier& model, const PreparedNodeData& data, int64_t row);

}  // namespace attend::graph
