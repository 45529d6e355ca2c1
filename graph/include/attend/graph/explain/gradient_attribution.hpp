#pragma once
/// Gradient attributions of the explained quantity f (explained_quantity.hpp) of one target
/// with respect to the input features of its computation graph:
///   saliency          |df/dx_vf|          (Simonyan et al. 2014; PyG's Saliency)
///   input x gradient  x_vf df/dx_vf       (Shrikumar et al. 2016; PyG's InputXGradient)
/// Both come from one backward pass on the dense features [n, F] of the computation graph.

#include <cstdint>

#include "attend/core/tensor.hpp"
#include "attend/graph/explain/computation_graph.hpp"
#include "attend/graph/node_classifier.hpp"

namespace attend::graph {

/// f at `features` and df/d features.
struct FeatureGradient {
  double value = 0.0;  ///< f, summed over the copies
  Tensor gradient;     ///< [copies n, F]
};

/// f(features) and its gradient on `graph`, which holds `copies` copies of a computation graph
/// of n nodes (replicate), the target being local node `target` of each copy and the class
/// `cls`; `features` [copies n, F] dense.
FeatureGradient feature_gradient(const NodeClassifier& model, const GraphContext& graph, const Tensor& features,
                                 int64_t target, int64_t cls, int64_t copies);

/// Dense input features [n, F] of a computation graph.
Tensor dense_features(const ComputationGraph& cg);

/// [n, F] -> per-feature sums over the nodes [F] and per-node sums over the features [n],
/// in double, in a fixed order.
std::vector<float> sum_over_nodes(const Tensor& attribution);
std::vector<float> sum_over_features(const Tensor& attribution);

}  // namespace attend::graph
