#pragma once
/// Integrated gradients (Sundararajan et al. 2017, Eq. 1) of the explained quantity f of one
/// target, on the input features of its computation graph with the zero baseline:
///   IG_vf = x_vf * integral over a in [0, 1] of df/dx_vf (a x) da,
/// the integral by the midpoint Riemann rule with S steps, a_k = (k + 1/2) / S, k = 0..S-1
/// (error O(1/S^2) for a smooth f). Completeness (their Prop. 1) says that sum_vf IG_vf =
/// f(x) - f(0); the gap between the two is reported, so a user can see whether S suffices.
/// Steps run in batches: each batch is one forward and one backward pass over disjoint copies
/// of the computation graph (replicate), copy k holding a_k x.

#include <cstdint>

#include "attend/core/tensor.hpp"
#include "attend/graph/explain/computation_graph.hpp"
#include "attend/graph/node_classifier.hpp"

namespace attend::graph {

struct IntegratedGradients {
  Tensor attribution;            ///< [n, F]
  double value = 0.0;            ///< f(input)
  double baseline_value = 0.0;   ///< f(baseline)
  /// sum of the attributions - (f(input) - f(baseline))
  double completeness_gap = 0.0;
};

/// `steps` >= 1; `batch_values` bounds copies x n x F per batch (at least one copy).
IntegratedGradients integrated_gradients_features(const NodeClassifier& model, const ComputationGraph& cg,
                                                  int64_t cls, int steps, int64_t batch_values = int64_t{1} << 22);

}  // namespace attend::graph
