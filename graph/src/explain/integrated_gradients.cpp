#include "attend/graph/explain/integrated_gradients.hpp"

#include <algorithm>
#include <memory>
#include <utility>

#include "attend/core/error.hpp"
#include "attend/graph/explain/gradient_attribution.hpp"

namespace attend::graph {

namespace {

/// The gradient of f at a batch of points, each copy on its own copy of the computation graph
/// (replicate; one copy reads cg.data itself). `batch_gradient(graph, points, copies)`.
template <class BatchGradient>
PathGradientFn on_copies(const ComputationGraph& cg, const BatchGradient& batch_gradient) {
  auto replicated = std::make_shared<std::pair<int64_t, PreparedNodeData>>(0, PreparedNodeData{});
  return [&cg, batch_gradient, replicated](const Tensor& points, int64_t copies) -> PathGradient {
    if (copies == 1) return batch_gradient(cg.data, points, copies);
    if (replicated->first != copies) *replicated = {copies, replicate(cg.data, copies)};
    return batch_gradient(replicated->second, points, copies);
  };
}

}  // namespace

IntegratedGradients integrated_gradients_features(const NodeClassifier& model, const ComputationGraph& cg,
                                                  int64_t cls, const QuadratureRule& rule, int64_t batch_values) {
  const Tensor x = dense_features(cg);  // [n, F]
  const auto steps = std::max<int64_t>(static_cast<int64_t>(rule.points.size()), 1);
  const int64_t per_batch = std::clamp<int64_t>(batch_values / std::max<int64_t>(x.numel(), 1), 1, steps);
  return integrate_from_zero(x, rule, per_batch,
                             on_copies(cg, [&](const PreparedNodeData& graph, const Tensor& features, int64_t copies) {
                               const FeatureGradient g = feature_gradient(model, graph.graph, features, cg.target, cls, copies);
                               return PathGradient{g.value, g.gradient};
                             }));
}

IntegratedGradients integrated_gradients_edges(const NodeClassifier& model, const ComputationGraph& cg, int64_t cls,
                                               const QuadratureRule& rule, int64_t batch_values) {
  const int64_t n = cg.num_nodes(), e_count = cg.data.graph.plain().num_edges();
  const auto steps = std::max<int64_t>(static_cast<int64_t>(rule.points.size()), 1);
  const int64_t per_batch = std::clamp<int64_t>(batch_values / (n + e_count), 1, steps);
  return integrate_from_zero(Tensor({e_count}, 1.0f), rule, per_batch,
                             on_copies(cg, [&](const PreparedNodeData& graph, const Tensor& mask, int64_t copies) {
                               const EdgeGradient g = edge_gradient(model, graph, mask, cg.target, cls, copies);
                               return PathGradient{g.value, g.gradient};
                             }));
}

}  // namespace attend::graph
