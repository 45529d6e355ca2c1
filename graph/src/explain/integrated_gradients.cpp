#include "attend/graph/explain/integrated_gradients.hpp"

#include <algorithm>

#include "attend/core/error.hpp"
#include "attend/graph/explain/gradient_attribution.hpp"

namespace attend::graph {

IntegratedGradients integrated_gradients_features(const NodeClassifier& model, const ComputationGraph& cg,
                                                  int64_t cls, int steps, int64_t batch_values) {
  ATTEND_CHECK(steps >= 1, "integrated gradients with " << steps << " steps");
  const Tensor x = dense_features(cg);  // [n, F]
  const int64_t n = x.dim(0), f = x.dim(1), size = n * f;
  const int64_t per_batch = std::clamp<int64_t>(batch_values / std::max<int64_t>(size, 1), 1, steps);
  std::vector<double> integral(static_cast<std::size_t>(size), 0.0);  // sum over steps of df/dx(a_k x)
  PreparedNodeData batch_graph;
  int64_t batch_graph_copies = 0;
  for (int64_t first = 0; first < steps; first += per_batch) {
    const int64_t copies = std::min<int64_t>(per_batch, steps - first);
    if (copies != batch_graph_copies) {
      batch_graph = replicate(cg.data, copies);
      batch_graph_copies = copies;
    }
    Tensor scaled({copies * n, f});  // [copies n, F]: copy k holds a_{first + k} x
    for (int64_t k = 0; k < copies; ++k) {
      const auto a = static_cast<float>((static_cast<double>(first + k) + 0.5) / steps);
      for (int64_t i = 0; i < size; ++i) scaled[k * size + i] = a * x[i];
    }
    const FeatureGradient g = feature_gradient(model, batch_graph.graph, scaled, cg.target, cls, copies);
    for (int64_t k = 0; k < copies; ++k)
      for (int64_t i = 0; i < size; ++i) integral[i] += g.gradient[k * size + i];
  }
  IntegratedGradients out;
  out.attribution = Tensor({n, f});
  double total = 0.0;
  for (int64_t i = 0; i < size; ++i) {
    const double a = static_cast<double>(x[i]) * integral[i] / steps;
    out.attribution[i] = static_cast<float>(a);
    total += a;
  }
  out.value = feature_gradient(model, cg.data.graph, x, cg.target, cls, 1).value;
  out.baseline_value = feature_gradient(model, cg.data.graph, Tensor({n, f}), cg.target, cls, 1).value;
  out.completeness_gap = total - (out.value - out.baseline_value);
  return out;
}

IntegratedGradients integrated_gradients_edges(const NodeClassifier& model, const ComputationGraph& cg, int64_t cls,
                                               int steps, int64_t batch_values) {
  ATTEND_CHECK(steps >= 1, "integrated gradients with " << steps << " steps");
  const int64_t n = cg.num_nodes(), e_count = cg.data.graph.plain().num_edges();
  const int64_t per_batch = std::clamp<int64_t>(batch_values / (n + e_count), 1, steps);
  std::vector<double> integral(static_cast<std::size_t>(e_count), 0.0);  // sum over steps of df/dm(a_k 1)
  PreparedNodeData batch_graph;
  int64_t batch_graph_copies = 0;
  for (int64_t first = 0; first < steps; first += per_batch) {
    const int64_t copies = std::min<int64_t>(per_batch, steps - first);
    if (copies != batch_graph_copies) {
      batch_graph = replicate(cg.data, copies);
      batch_graph_copies = copies;
    }
    Tensor mask({copies * e_count});  // [copies E]: copy k holds a_{first + k}
    for (int64_t k = 0; k < copies; ++k) {
      const auto a = static_cast<float>((static_cast<double>(first + k) + 0.5) / steps);
      std::fill(mask.data() + k * e_count, mask.data() + (k + 1) * e_count, a);
    }
    const EdgeGradient g = edge_gradient(model, batch_graph, mask, cg.target, cls, copies);
    for (int64_t k = 0; k < copies; ++k)
      for (int64_t e = 0; e < e_count; ++e) integral[e] += g.gradient[k * e_count + e];
  }
  IntegratedGradients out;
  out.attribution = Tensor({e_count});
  double total = 0.0;
  for (int64_t e = 0; e < e_count; ++e) {
    const double a = integral[e] / steps;
    out.attribution[e] = static_cast<float>(a);
    total += a;
  }
  out.value = edge_gradient(model, cg.data, Tensor({e_count}, 1.0f), cg.target, cls, 1).value;
  out.baseline_value = edge_gradient(model, cg.data, Tensor({e_count}, 0.0f), cg.target, cls, 1).value;
  out.completeness_gap = total - (out.value - out.baseline_value);
  return out;
}

}  // namespace attend::graph
