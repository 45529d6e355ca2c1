#pragma once
/// Which sequences and which columns of the alignment drive one predicted contact: integrated
/// gradients (Sundararajan, Taly & Yan 2017; attend::integrate_from_zero, core/path_integral.hpp)
/// of the Evoformer contact model's logit for the pair (i, j) with respect to the model's MSA
/// input features, ContactModelInput::msa [S, W, 42]: each of the S rows the model reads
/// (the query first) carries its one-hot residues (21 channels) and the family's column
/// profile (21 channels). The baseline is all zeros (no sequence, no profile); the target
/// one-hot, the pair features (the potts scores) and the positions stay as they are, so the
/// attributions sum to logit(input) - logit(MSA features 0) up to the completeness gap the
/// midpoint rule leaves. Per-sequence attributions sum over the columns and channels of a row,
/// per-column ones over the rows and channels of a column (in double, in index order).
///
/// The factored-attention fit has no such map: its scores come from an optimisation per
/// alignment, not from a differentiable function of the alignment, so only the Evoformer model
/// is explained this way.
///
/// Cost: `steps` forward and backward passes of the model on the whole family (one step per
/// pass), plus two forwards for f(input) and f(0).

#include <cstdint>
#include <utility>
#include <vector>

#include "attend/bio/contact_features.hpp"
#include "attend/core/path_integral.hpp"
#include "attend/core/tensor.hpp"

namespace attend::bio {

class ContactModel;

/// The attribution of one contact's logit.
struct ContactAttribution {
  int64_t i = 0, j = 0;               ///< the pair, 0-based window positions, i < j
  int steps = 0;                      ///< points of the rule that gave the attribution
  QuadratureKind rule = QuadratureKind::kMidpoint;
  Tensor attribution;                 ///< [S, W, kMsaFeatures]
  std::vector<double> per_sequence;   ///< [S]: row s of the input (the query is row 0)
  std::vector<double> per_column;     ///< [W]
  double value = 0.0;                 ///< the logit at the input
  double baseline_value = 0.0;        ///< the logit with MSA features 0
  /// sum of the attributions - (value - baseline_value)
  double completeness_gap = 0.0;
};

/// Integrated gradients of `model`'s logit (i, j) on `input` with the quadrature `path` (its
/// rule, steps >= 1 and, with max_gap > 0, refined until the completeness gap is within it).
/// The model must be in evaluation mode (no dropout); 0 <= i < j < W. `progress` is called
/// after each step. Every pass is thread-count invariant, so the result has the same bits for any
/// thread count.
ContactAttribution integrated_gradients_contact(const ContactModel& model, const ContactModelInput& input, int64_t i,
                                                int64_t j, const PathSteps& path, const PathProgressFn& progress = {});

/// The pair i < j with j - i >= kLongMin (contact_metrics.hpp) and the highest score in
/// `scores` [L, L] (ties: lowest i, then lowest j), or the highest-scoring pair with j - i >= 6
/// when L is too short for a long-range pair, or (0, 1) when it is too short for that too.
std::pair<int64_t, int64_t> top_long_range_pair(const Tensor& scores);

}  // namespace attend::bio
