#pragma once
/// Gradient attributions of the explained quantity f (explained_quantity.hpp) of one target
/// with respect to the input features of its computation graph and to a soft edge mask m
/// (GraphContext::with_edge_mask: edge e's message is scaled by m_e; the input is m = 1):
///   saliency          |df/dx_vf|,  |df/dm_e|      (Simonyan et al. 2014; PyG's Saliency)
///   input x gradient  x_vf df/dx_vf,  df/dm_e     (Shrikumar et al. 2016; PyG's InputXGradient)
/// Each comes from one backward pass (dense features [n, F], or the mask [E] of the
/// computation graph's plain edges) of a TargetForward pass (target_forward.hpp), with the
/// model's parameters frozen (FrozenParameters) so that the backward computes no weight or
/// bias gradient: the input's gradient is the same, for less work.

#include <cstdint>

#include "attend/core/tensor.hpp"
#include "attend/graph/explain/computation_graph.hpp"
#include "attend/graph/explain/target_forward.hpp"
#include "attend/graph/node_classifier.hpp"

namespace attend::graph {

/// f at `features` and df/d features.
struct FeatureGradient {
  double value = 0.0;  ///< f, summed over the copies
  Tensor gradient;     ///< [copies n, F]
};

/// f(features) and its gradient on `pass` (copies of a computation graph of n nodes, the
/// explained class `cls` at the target of each), `features` [copies n, F] dense.
FeatureGradient feature_gradient(const NodeClassifier& model, const TargetForward& pass, const Tensor& features,
                                 int64_t cls);

/// f at the edge mask `mask` [copies E] and df/d mask, on `pass` with its sparse input
/// features (copy k's edge e at k E + e).
struct EdgeGradient {
  double value = 0.0;  ///< f, summed over the copies
  Tensor gradient;     ///< [copies E]
};
EdgeGradient edge_gradient(const NodeClassifier& model, const TargetForward& pass, const Tensor& mask, int64_t cls);

/// Dense input features [n, F] of a computation graph.
Tensor dense_features(const ComputationGraph& cg);

/// [n, F] -> per-feature sums over the nodes [F] and per-node sums over the features [n],
/// in double, in a fixed order.
std::vector<float> sum_over_nodes(const Tensor& attribution);
std::vector<float> sum_over_features(const Tensor& attribution);

}  // namespace attend::graph
