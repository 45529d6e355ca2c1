#pragma once
// Internal, shared by the pseudo-likelihood predictors (potts, factored): scores of a fit over
// the kept columns mapped back onto every column of the input, and the fit's JSON summary.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include <nlohmann/json.hpp>

#include "attend/bio/potts_predictor.hpp"
#include "attend/core/tensor.hpp"

namespace attend::bio::detail {

/// `fitted` [L', L'] over the kept `columns` (increasing, L' of them) -> [L, L]: pairs that
/// touch a removed column get the lowest off-diagonal fitted score, the diagonal 0.
inline Tensor expand_fitted_scores(const Tensor& fitted, const std::vector<int64_t>& columns, int64_t L) {
  const auto kept = static_cast<int64_t>(columns.size());
  float lowest = std::numeric_limits<float>::max();
  for (int64_t i = 0; i < kept; ++i)
    for (int64_t j = 0; j < kept; ++j)
      if (i != j) lowest = std::min(lowest, fitted[i * kept + j]);
  Tensor scores({L, L}, lowest);  // [L, L]
  for (int64_t i = 0; i < L; ++i) scores[i * L + i] = 0.0f;
  for (int64_t i = 0; i < kept; ++i)
    for (int64_t j = 0; j < kept; ++j)
      if (i != j) scores[columns[i] * L + columns[j]] = fitted[i * kept + j];
  return scores;
}

/// The options both predictors share (weighting, regularisation, filters, L-BFGS) and the
/// fit's statistics, as stored in the contacts HDF5 file.
template <class Options>
nlohmann::json pseudo_likelihood_parameters(const Options& options, const PottsResult& result) {
  return {
      {"identity_threshold", options.identity_threshold},
      {"lambda_single", options.lambda_single},
      {"lambda_pair_factor", options.lambda_pair_factor},
      {"lambda_pair", result.lambda_pair},
      {"max_sequence_gap_fraction", options.filter.max_sequence_gap_fraction},
      {"max_depth", options.filter.max_depth},
      {"max_column_gap_fraction", options.filter.max_column_gap_fraction},
      {"optimizer", "lbfgs"},
      {"lbfgs_history", options.optimizer.history},
      {"max_iterations", options.optimizer.max_iterations},
      {"epsilon", options.optimizer.epsilon},
      {"past", options.optimizer.past},
      {"num_sequences", result.num_sequences},
      {"num_columns", static_cast<int64_t>(result.columns.size())},
      {"n_eff", result.n_eff},
      {"iterations", result.iterations},
      {"evaluations", result.evaluations},
      {"objective", result.objective},
      {"status", to_string(result.status)},
      {"seconds", result.seconds},
  };
}

}  // namespace attend::bio::detail
