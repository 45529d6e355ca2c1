#pragma once
/// The unsupervised `potts` contact predictor: filter and weight an alignment, fit the Potts
/// model of potts_model.hpp by L-BFGS (core/lbfgs.hpp), score pairs by the APC-corrected
/// Frobenius norm of the couplings (apc.hpp). Defaults are CCMpred's published settings:
/// no filtering, sequence weights at 80 % identity, lambda_single 0.01, lambda_pair
/// 0.2 * (L - 1), stop when the objective decreased by less than 1 % over the last 5
/// iterations. Deterministic: the same input gives the same bits for any thread count.
/// `regularization = kPlmdca` switches to plmDCA's strengths, which grow with N_eff.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attend/bio/alignment.hpp"
#include "attend/bio/alignment_filter.hpp"
#include "attend/bio/potts_model.hpp"
#include "attend/core/lbfgs.hpp"
#include "attend/core/tensor.hpp"

namespace attend::bio {

/// How the regularisation strengths follow the alignment.
enum class PottsRegularizationRule {
  /// CCMpred (plmc/EVcouplings use the same strength): lambda_single and
  /// lambda_pair_factor * (L - 1), fixed against the objective summed over the weighted
  /// sequences, so the prior weakens relative to the data as N_eff grows.
  kCcmpred,
  /// plmDCA (Ekeberg et al. 2013; asymmetric version 2014): the pseudo-likelihood is averaged
  /// over the weighted sequences with lambda_h = lambda_J = lambda, lambda = 0.01 when
  /// N_eff > 500, else 0.1 - 0.09 N_eff / 500 (stronger for shallow alignments). On our summed
  /// objective: lambda_single = lambda_pair = lambda * N_eff. lambda_single and
  /// lambda_pair_factor are not used.
  kPlmdca,
};

/// "ccmpred" or "plmdca".
std::string to_string(PottsRegularizationRule rule);
/// Inverse of to_string; throws attend::Error on any other name.
PottsRegularizationRule parse_potts_regularization_rule(const std::string& name);

/// Options of `predict_contacts_potts`.
struct PottsOptions {
  /// Which convention sets the strengths below (docs/results.md compares them).
  PottsRegularizationRule regularization = PottsRegularizationRule::kCcmpred;
  /// Applied first (defaults remove nothing, as CCMpred).
  AlignmentFilterOptions filter;
  /// Sequence-weight identity threshold (sequence_weights.hpp); >= 1 gives uniform weights.
  double identity_threshold = 0.8;
  /// Weight of the squared fields.
  double lambda_single = 0.01;
  /// lambda_pair = lambda_pair_factor * (L - 1), L after filtering.
  double lambda_pair_factor = 0.2;
  /// The optimiser: CCMpred's convergence rule (relative decrease below 0.01 over the last 5
  /// iterations), which L-BFGS meets in 20-50 iterations; 250 iterations at most. Running on to
  /// the exact minimum (plmc's practice) was measured on 7 families (docs/results.md): it moves
  /// long-range P@L/5 and P@L/2 by about one contact either way, lower on the deep Pfam
  /// alignments (PF00014, PF00200), where the early stop acts as extra regularisation at
  /// CCMpred's lambda_pair; so the CCMpred rule stays the default (`--tolerance` changes it).
  LbfgsOptions optimizer{.history = 5, .max_iterations = 250, .epsilon = 1e-2, .past = 5};

  /// The options declared once: the keys of the fit's recorded parameters, the user guide's table.
  static const OptionList<PottsOptions>& option_list();
};

/// Progress of a fit, reported after every L-BFGS iteration.
struct PottsProgress {
  int iteration = 0;
  int evaluations = 0;
  double objective = 0.0;
  double gradient_norm = 0.0;
  double seconds = 0.0;  ///< since the fit started
};

/// Called after every iteration (progress lines for long fits).
using PottsProgressCallback = std::function<void(const PottsProgress&)>;

/// Scores and statistics of one fit.
struct PottsResult {
  /// APC-corrected scores [L, L] in the numbering of the input alignment (symmetric, diagonal
  /// 0). Pairs touching a column removed by the filter get the lowest score of the kept pairs.
  Tensor scores;
  /// Columns of the input that were fitted, [L'] increasing.
  std::vector<int64_t> columns;
  int64_t num_sequences = 0;  ///< after filtering
  double n_eff = 0.0;         ///< sum of the sequence weights
  double lambda_single = 0.0; ///< the strengths used (potts_regularization)
  double lambda_pair = 0.0;
  LbfgsStatus status = LbfgsStatus::kMaxIterations;
  int iterations = 0;
  int evaluations = 0;
  double objective = 0.0;     ///< final f
  double seconds = 0.0;       ///< wall time of weighting and fitting
};

/// The strengths `options.regularization` gives an alignment of `length` columns (after
/// filtering) and `n_eff` effective sequences.
PottsRegularization potts_regularization(const PottsOptions& options, int64_t length, double n_eff);

/// Fit the Potts model to `alignment` and score every pair.
PottsResult predict_contacts_potts(const Alignment& alignment, const PottsOptions& options = {},
                                   const PottsProgressCallback& progress = {});

/// The options and fit statistics as a flat JSON object (the `parameters` of a
/// ContactPrediction): regularization, identity_threshold, lambda_single (the one used),
/// lambda_pair_factor, lambda_pair,
/// filter settings, optimizer settings, num_sequences, n_eff, iterations, evaluations,
/// objective, status, seconds.
nlohmann::json potts_parameters(const PottsOptions& options, const PottsResult& result);

}  // namespace attend::bio
