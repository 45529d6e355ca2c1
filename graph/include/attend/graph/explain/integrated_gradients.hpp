#pragma once
/// Integrated gradients (Sundararajan et al. 2017, Eq. 1) of the explained quantity f of one
/// target, with the zero baseline, on the input features of its computation graph,
///   IG_vf = x_vf * integral over a in [0, 1] of df/dx_vf (a x) da,
/// or on a soft edge mask m over its plain edges (GraphContext::with_edge_mask), the input
/// being m = 1 (every message whole) and the baseline m = 0 (no message but self-loops):
///   IG_e = integral over a in [0, 1] of df/dm_e (a 1) da,
/// the integral by an S-point quadrature rule on [0, 1] (attend::integrate_from_zero,
/// core/path_integral.hpp, which reports the completeness gap sum_vf IG_vf - (f(x) - f(0))).
/// Steps run in batches: each batch is one forward and one backward pass over disjoint copies
/// of the computation graph (a TargetForward pass, target_forward.hpp, which computes each
/// layer only where the target reads it), copy k holding a_k x (or the mask a_k 1), where a_k
/// is the rule's k-th point.
/// f(input) is the explained value of TargetForwards::input_logits (the one forward that
/// also gives the predicted class; the unmasked pass equals the all-ones mask's), f(0) one
/// more forward.
/// With a gap bound (PathSteps::max_gap) the rule is refined per call until the gap is
/// within it or the step cap, and the steps used are reported.

#include <cstdint>

#include "attend/core/path_integral.hpp"
#include "attend/core/quadrature.hpp"
#include "attend/core/tensor.hpp"
#include "attend/graph/explain/target_forward.hpp"

namespace attend::graph {

/// Attributions ([n, F] for features, [E] for edges: plain edges of cg.data), f(input),
/// f(baseline) and the completeness gap.
using IntegratedGradients = PathIntegral;

/// Of the explained class `cls` of the target of `passes` (its model and computation graph;
/// the passes built here stay in it for the next call). `batch_values` bounds
/// copies x n x F per batch (at least one copy).
IntegratedGradients integrated_gradients_features(TargetForwards& passes, int64_t cls, const PathSteps& path,
                                                  int64_t batch_values = int64_t{1} << 22);
/// `batch_values` bounds copies x (n + E) per batch.
IntegratedGradients integrated_gradients_edges(TargetForwards& passes, int64_t cls, const PathSteps& path,
                                               int64_t batch_values = int64_t{1} << 20);

}  // namespace attend::graph
