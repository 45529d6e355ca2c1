#pragma once
/// Which inputs drive one predicted contact: integrated gradients (Sundararajan, Taly & Yan
/// 2017; attend::integrate_from_zero, core/path_integral.hpp) of the Evoformer contact model's
/// logit for the pair (i, j) with respect to both of the model's feature inputs, on one path
/// that scales them together:
/// - the MSA features, ContactModelInput::msa [S, W, 42]: each of the S rows the model reads
///   (the query first) carries its one-hot residues (21 channels) and the family's column
///   profile (21 channels);
/// - the pair features, ContactModelInput::pair [W, W, F]: the standardised potts APC score of
///   every residue pair (F = 1) and, for a model with neighbour_scores, its three neighbour
///   means (F = 4, contact_features.hpp). The pair input feeds the pair embedding and the
///   skip path pair . w_p + b (contact_model.hpp).
/// The baseline is all zeros for both: no sequence and no profile, and every pair at the
/// family's mean coevolution score (the scores are standardised to mean 0, so 0 is "no
/// coevolution signal above the family's average", not an arbitrary value). The target
/// one-hot and the positions stay as they are. The attributions of both inputs together sum
/// to logit(input) - logit(both 0) up to the completeness gap the quadrature leaves, and the
/// split of that change between the MSA and the pair input is reported (msa_total,
/// pair_total). Per-sequence attributions sum the MSA attributions over the columns and
/// channels of a row, per-column ones over the rows and channels of a column; the pair map
/// sums the pair attributions over the F channels of each ordered pair (all in double, in
/// index order).
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
  Tensor msa_attribution;             ///< [S, W, kMsaFeatures]
  Tensor pair_attribution;            ///< [W, W, F]
  std::vector<double> per_sequence;   ///< [S]: row s of the input (the query is row 0)
  std::vector<double> per_column;     ///< [W]
  Tensor pair_map;                    ///< [W, W]: pair_attribution summed over its F channels
  double msa_total = 0.0;             ///< sum of msa_attribution
  double pair_total = 0.0;            ///< sum of pair_attribution
  double value = 0.0;                 ///< the logit at the input
  double baseline_value = 0.0;        ///< the logit with MSA and pair features 0
  /// msa_total + pair_total - (value - baseline_value), the totals taken before the
  /// attributions are rounded to float
  double completeness_gap = 0.0;
};

/// Integrated gradients of `model`'s logit (i, j) on `input` with the quadrature `path` (its
/// rule, steps >= 1 and, with max_gap > 0, refined until the completeness gap is within it).
/// The model must be in evaluation mode (no dropout); 0 <= i < j < W. `progress` is called
/// after each step. Every pass is thread-count invariant, so the result has the same bits for any
/// thread count.
ContactAttribution integrated_gradients_contact(const ContactModel& model, const ContactModelInput& input, int64_t i,
                                                int64_t j, const PathSteps& path, const PathProgressFn& progress = {});

/// One unordered residue pair's attribution through the pair input: pair_map(i, j) +
/// pair_map(j, i) for i < j (the model reads the symmetric score at both), pair_map(i, i) for
/// i == j.
struct ResiduePairAttribution {
  int64_t i = 0, j = 0;  ///< 0-based, i <= j
  double score = 0.0;
};

/// Every unordered pair i <= j of `a.pair_map`, in (i, j) order; the scores sum to
/// a.pair_total up to float rounding. Cost O(W^2).
std::vector<ResiduePairAttribution> residue_pair_attributions(const ContactAttribution& a);

/// `pairs` ordered by |score|, largest first (ties: the earlier pair first).
std::vector<ResiduePairAttribution> by_magnitude(std::vector<ResiduePairAttribution> pairs);

/// The 1-based place of the explained pair (a.i, a.j) in by_magnitude(residue_pair_attributions(a)).
int64_t explained_pair_rank(const ContactAttribution& a);

/// The pair i < j with j - i >= kLongMin (contact_metrics.hpp) and the highest score in
/// `scores` [L, L] (ties: lowest i, then lowest j), or the highest-scoring pair with j - i >= 6
/// when L is too short for a long-range pair, or (0, 1) when it is too short for that too.
std::pair<int64_t, int64_t> top_long_range_pair(const Tensor& scores);

}  // namespace attend::bio
