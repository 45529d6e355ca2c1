#include "attend/graph/explain/integrated_gradients.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "attend/core/error.hpp"
#include "attend/graph/explain/gradient_attribution.hpp"

namespace attend::graph {

namespace {

/// Adds sum_k w_k df/dinput(a_k input) over the points of `rule` to `integral` [input.numel()]:
/// `gradient(graph, scaled, copies)` returns f and df/d(scaled) for `copies` copies of the
/// computation graph (replicate), copy k holding a_k * input in rows [k m, (k + 1) m); at most
/// `max_copies` copies run per pass.
template <class Gradient>
void accumulate_path(const ComputationGraph& cg, const Tensor& input, const QuadratureRule& rule, int64_t max_copies,
                     const Gradient& gradient, std::vector<double>& integral) {
  const auto points = static_cast<int64_t>(rule.points.size());
  const int64_t per_batch = std::clamp<int64_t>(max_copies, 1, std::max<int64_t>(points, 1));
  const int64_t size = input.numel();
  PreparedNodeData batch_graph;
  int64_t batch_graph_copies = 0;
  for (int64_t first = 0; first < points; first += per_batch) {
    const int64_t copies = std::min<int64_t>(per_batch, points - first);
    if (copies != batch_graph_copies) {
      batch_graph = replicate(cg.data, copies);
      batch_graph_copies = copies;
    }
    Shape shape = input.shape();
    shape[0] *= copies;
    Tensor scaled(shape);  // copy k holds a_{first + k} input
    for (int64_t k = 0; k < copies; ++k) {
      const auto a = static_cast<float>(rule.points[static_cast<std::size_t>(first + k)]);
      for (int64_t i = 0; i < size; ++i) scaled[k * size + i] = a * input[i];
    }
    const Tensor g = gradient(batch_graph, scaled, copies).gradient;
    for (int64_t k = 0; k < copies; ++k) {
      const double w = rule.weights[static_cast<std::size_t>(first + k)];
      for (int64_t i = 0; i < size; ++i) integral[i] += w * g[k * size + i];
    }
  }
}

/// Integrated gradients of one input tensor `input` [m, ...] (features [n, F], or the all-ones
/// edge mask [E]) along the straight path from 0, the rule refined as `path` asks
/// (accumulate_path for `gradient` and `max_copies`).
template <class Gradient>
IntegratedGradients integrate_from_zero(const ComputationGraph& cg, const Tensor& input, const PathSteps& path,
                                        int64_t max_copies, const Gradient& gradient) {
  ATTEND_CHECK(path.steps >= 1 && path.max_gap >= 0.0, "integrated gradients with " << path.steps << " steps");
  const int64_t size = input.numel();
  IntegratedGradients out;
  out.value = gradient(cg.data, input, 1).value;
  out.baseline_value = gradient(cg.data, Tensor(input.shape()), 1).value;
  const double change = out.value - out.baseline_value;
  std::vector<double> integral(static_cast<std::size_t>(size), 0.0);  // the rule's sum of w_k df/dinput(a_k input)
  out.attribution = Tensor(input.shape());
  auto attribute = [&] {
    double total = 0.0;
    for (int64_t i = 0; i < size; ++i) {
      const double a = static_cast<double>(input[i]) * integral[i];
      out.attribution[i] = static_cast<float>(a);
      total += a;
    }
    out.completeness_gap = total - change;
  };
  out.steps = path.steps;
  accumulate_path(cg, input, quadrature_rule(path.rule, path.steps), max_copies, gradient, integral);
  attribute();
  while (path.max_gap > 0.0 && std::abs(out.completeness_gap) > path.max_gap * std::abs(change)) {
    const QuadratureRefinement finer = refine_quadrature(path.rule, out.steps);
    if (finer.points > path.max_steps) break;
    for (double& v : integral) v *= finer.kept_scale;
    accumulate_path(cg, input, finer.added, max_copies, gradient, integral);
    out.steps = finer.points;
    attribute();
  }
  return out;
}

}  // namespace

IntegratedGradients integrated_gradients_features(const NodeClassifier& model, const ComputationGraph& cg,
                                                  int64_t cls, const PathSteps& path, int64_t batch_values) {
  const Tensor x = dense_features(cg);  // [n, F]
  return integrate_from_zero(cg, x, path, batch_values / std::max<int64_t>(x.numel(), 1),
                             [&](const PreparedNodeData& graph, const Tensor& features, int64_t copies) {
                               return feature_gradient(model, graph.graph, features, cg.target, cls, copies);
                             });
}

IntegratedGradients integrated_gradients_edges(const NodeClassifier& model, const ComputationGraph& cg, int64_t cls,
                                               const PathSteps& path, int64_t batch_values) {
  const int64_t n = cg.num_nodes(), e_count = cg.data.graph.plain().num_edges();
  return integrate_from_zero(cg, Tensor({e_count}, 1.0f), path, batch_values / (n + e_count),
                             [&](const PreparedNodeData& graph, const Tensor& mask, int64_t copies) {
                               return edge_gradient(model, graph, mask, cg.target, cls, copies);
                             });
}

}  // namespace attend::graph
