#include "attend/graph/explain/gradient_attribution.hpp"

#include "attend/core/error.hpp"
#include "attend/graph/explain/explained_quantity.hpp"

namespace attend::graph {

FeatureGradient feature_gradient(const NodeClassifier& model, const GraphContext& graph, const Tensor& features,
                                 int64_t target, int64_t cls, int64_t copies) {
  ATTEND_CHECK(features.rank() == 2 && features.dim(0) % copies == 0,
               "features " << shape_to_string(features.shape()) << " for " << copies << " copies");
  const int64_t n = features.dim(0) / copies;
  std::vector<int64_t> rows, classes;
  for (int64_t k = 0; k < copies; ++k) {
    rows.push_back(k * n + target);
    classes.push_back(cls);
  }
  Var x(features, true);
  Var f = target_log_probability(model, NodeFeatures(x), graph, rows, classes);
  f.backward();
  return {static_cast<double>(f.value().item()), x.grad()};
}

EdgeGradient edge_gradient(const NodeClassifier& model, const PreparedNodeData& graph, const Tensor& mask,
                           int64_t target, int64_t cls, int64_t copies) {
  ATTEND_CHECK(mask.rank() == 1 && mask.dim(0) == graph.graph.plain().num_edges(),
               "edge mask " << shape_to_string(mask.shape()) << " for " << graph.graph.plain().num_edges() << " edges");
  const int64_t n = graph.dataset.num_nodes / copies;
  std::vector<int64_t> rows, classes;
  for (int64_t k = 0; k < copies; ++k) {
    rows.push_back(k * n + target);
    classes.push_back(cls);
  }
  Var m(mask, true);
  Var f = target_log_probability(model, graph.features, graph.graph.with_edge_mask(m), rows, classes);
  f.backward();
  return {static_cast<double>(f.value().item()), m.grad()};
}

Tensor dense_features(const ComputationGraph& cg) { return cg.data.features.sparse->to_dense(); }

std::vector<float> sum_over_nodes(const Tensor& a) {
  const int64_t n = a.dim(0), f = a.dim(1);
  std::vector<double> sum(static_cast<std::size_t>(f), 0.0);
  for (int64_t v = 0; v < n; ++v)
    for (int64_t k = 0; k < f; ++k) sum[k] += a[v * f + k];
  return {sum.begin(), sum.end()};
}

std::vector<float> sum_over_features(const Tensor& a) {
  const int64_t n = a.dim(0), f = a.dim(1);
  std::vector<float> out(static_cast<std::size_t>(n));
  for (int64_t v = 0; v < n; ++v) {
    double sum = 0.0;
    for (int64_t k = 0; k < f; ++k) sum += a[v * f + k];
    out[v] = static_cast<float>(sum);
  }
  return out;
}

}  // namespace attend::graph
