#pragma once
/// Integrated gradients (Sundararajan et al. 2017, Eq. 1) of the explained quantity f of one
/// target, with the zero baseline, on the input features of its computation graph,
///   IG_vf = x_vf * integral over a in [0, 1] of df/dx_vf (a x) da,
/// or on a soft edge mask m over its plain edges (GraphContext::with_edge_mask), the input
/// being m = 1 (every message whole) and the baseline m = 0 (no message but self-loops):
///   IG_e = integral over a in [0, 1] of df/dm_e (a 1) da,
/// the integral by an S-point quadrature rule on [0, 1] (core/quadrature.hpp: the midpoint
/// rule, error O(1/S^2) for a smooth f, or Gauss-Legendre, exact for a polynomial path of
/// degree 2S - 1; for a ReLU model the gradient jumps along the path and neither rule gains
/// its order, so the gap falls roughly as 1/S with both). Completeness (their Prop. 1) says that sum_vf IG_vf =
/// f(x) - f(0); the gap between the two is reported, so a user can see whether S suffices.
/// Steps run in batches: each batch is one forward and one backward pass over disjoint copies
/// of the computation graph (replicate), copy k holding a_k x (or the mask a_k 1), where a_k is
/// the rule's k-th point.
///
/// Adaptive steps (PathSteps::max_gap): while |gap| > max_gap |f(input) - f(baseline)| the
/// rule is refined (core/quadrature.hpp: refine_quadrature; midpoint triples its points and
/// keeps the gradients already summed, Gauss-Legendre doubles them and starts over) as long as
/// the finer rule has at most max_steps points; the steps used are reported.

#include <cstdint>

#include "attend/core/quadrature.hpp"
#include "attend/core/tensor.hpp"
#include "attend/graph/explain/computation_graph.hpp"
#include "attend/graph/node_classifier.hpp"

namespace attend::graph {

/// The quadrature of the path integral: `steps` points of `rule`, refined per call while the
/// relative completeness gap exceeds `max_gap` (0: never) and the cap allows.
struct PathSteps {
  QuadratureKind rule = QuadratureKind::kMidpoint;
  int steps = 50;        ///< points of the first rule (>= 1)
  double max_gap = 0.0;  ///< bound on |gap| / |f(input) - f(baseline)|; 0: no refinement
  int max_steps = 0;     ///< no refined rule has more points than this
};

struct IntegratedGradients {
  Tensor attribution;            ///< [n, F] (features) or [E] (edges: plain edges of cg.data)
  double value = 0.0;            ///< f(input)
  double baseline_value = 0.0;   ///< f(baseline)
  /// sum of the attributions - (f(input) - f(baseline))
  double completeness_gap = 0.0;
  int steps = 0;                 ///< points of the rule that gave the attribution
};

/// `batch_values` bounds copies x n x F per batch (at least one copy).
IntegratedGradients integrated_gradients_features(const NodeClassifier& model, const ComputationGraph& cg,
                                                  int64_t cls, const PathSteps& path,
                                                  int64_t batch_values = int64_t{1} << 22);
/// `batch_values` bounds copies x (n + E) per batch.
IntegratedGradients integrated_gradients_edges(const NodeClassifier& model, const ComputationGraph& cg, int64_t cls,
                                               const PathSteps& path, int64_t batch_values = int64_t{1} << 20);

}  // namespace attend::graph
