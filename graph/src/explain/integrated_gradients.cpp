#include "attend/graph/explain/integrated_gradients.hpp"

#include <algorithm>

#include "attend/core/error.hpp"
#include "attend/graph/explain/explained_quantity.hpp"
#include "attend/graph/explain/gradient_attribution.hpp"

namespace attend::graph {

IntegratedGradients integrated_gradients_features(TargetForwards& passes, int64_t cls, const PathSteps& path,
                                                  int64_t batch_values) {
  const Tensor x = dense_features(passes.graph());  // [n, F]
  const int64_t per_batch = std::max<int64_t>(batch_values / std::max<int64_t>(x.numel(), 1), 1);
  const auto value = [&](const Tensor& features) {  // f at one point, nothing recorded
    NoGradGuard no_grad;
    return static_cast<double>(
        target_log_probability(passes.model(), passes.copies(1), NodeFeatures(Var(features)), Var(), cls).value().item());
  };
  return integrate_from_zero(x, input_log_probability(passes, cls), path, per_batch, value, [&](const Tensor& features, int64_t copies) -> PathGradient {
    const FeatureGradient g = feature_gradient(passes.model(), passes.copies(copies), features, cls);
    return {g.value, g.gradient};
  });
}

IntegratedGradients integrated_gradients_edges(TargetForwards& passes, int64_t cls, const PathSteps& path,
                                               int64_t batch_values) {
  const ComputationGraph& cg = passes.graph();
  const int64_t n = cg.num_nodes(), e_count = cg.data.graph.plain().num_edges();
  const int64_t per_batch = std::max<int64_t>(batch_values / (n + e_count), 1);
  const auto value = [&](const Tensor& mask) {  // f at one point, nothing recorded
    NoGradGuard no_grad;
    const TargetForward& pass = passes.copies(1);
    return static_cast<double>(target_log_probability(passes.model(), pass, pass.features(), Var(mask), cls).value().item());
  };
  return integrate_from_zero(Tensor({e_count}, 1.0f), input_log_probability(passes, cls), path, per_batch, value,
                             [&](const Tensor& mask, int64_t copies) -> PathGradient {
                               const TargetForward& pass = passes.copies(copies, TargetForward::Input::kShared);
                               const EdgeGradient g = edge_gradient(passes.model(), pass, mask, cls);
                               return {g.value, g.gradient};
                             });
}

}  // namespace attend::graph
