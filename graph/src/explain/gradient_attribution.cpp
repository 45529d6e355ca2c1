#include "attend/graph/explain/gradient_attribution.hpp"

#include "attend/core/error.hpp"
#include "attend/core/frozen_parameters.hpp"
#include "attend/graph/explain/explained_quantity.hpp"

namespace attend::graph {

FeatureGradient feature_gradient(const NodeClassifier& model, const TargetForward& pass, const Tensor& features,
                                 int64_t cls) {
  ATTEND_CHECK(features.rank() == 2 && features.dim(0) == pass.input_rows(),
               "features " << shape_to_string(features.shape()) << " for a pass over " << pass.input_rows() << " rows");
  const FrozenParameters frozen(model);  // the backward computes no weight gradients
  Var x(features, true);
  Var f = target_log_probability(model, pass, NodeFeatures(x), Var(), cls);
  f.backward();
  return {static_cast<double>(f.value().item()), x.grad()};
}

EdgeGradient edge_gradient(const NodeClassifier& model, const TargetForward& pass, const Tensor& mask, int64_t cls) {
  ATTEND_CHECK(mask.rank() == 1 && mask.dim(0) == pass.copies() * pass.num_edges(),
               "edge mask " << shape_to_string(mask.shape()) << " for " << pass.copies() << " x " << pass.num_edges()
                            << " edges");
  const FrozenParameters frozen(model);
  Var m(mask, true);
  Var f = target_log_probability(model, pass, pass.features(), m, cls);
  f.backward();
  return {static_cast<double>(f.value().item()), m.grad()};
}

Tensor dense_features(const ComputationGraph& cg) { return to_dense(cg.data.features); }

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
