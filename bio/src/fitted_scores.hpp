#pragma once
// Internal, shared by the pseudo-likelihood predictors (potts, factored): the filtered and
// weighted alignment a fit reads, scores of a fit over the kept columns mapped back onto
// every column of the input, and the fit's JSON summary.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include <nlohmann/json.hpp>

#include "attend/bio/potts_predictor.hpp"
#include "attend/bio/sequence_weights.hpp"
#include "attend/core/error.hpp"
#include "attend/core/tensor.hpp"

namespace attend::bio::detail {

/// What a pseudo-likelihood fit reads: the alignment after `options.filter`, with its
/// sequence weights at `options.identity_threshold` (all 1 at a threshold >= 1).
struct WeightedAlignment {
  FilteredAlignment filtered;
  std::vector<float> weights;  ///< [N] of the filtered alignment
};

/// Filter and weigh `alignment` for the predictor named `method`, and record in `result` what
/// was fitted (kept columns, sequences, effective number of sequences).
template <class Options>
WeightedAlignment weigh_alignment(const Alignment& alignment, const Options& options, const char* method,
                                  PottsResult& result) {
  WeightedAlignment w{filter_alignment(alignment, options.filter), {}};
  const Alignment& a = w.filtered.alignment;
  ATTEND_CHECK(a.length >= 3, "the " << method << " predictor needs at least 3 columns, got " << a.length);
  w.weights = options.identity_threshold >= 1.0 ? std::vector<float>(static_cast<std::size_t>(a.num_sequences()), 1.0f)
                                                : sequence_weights(a, options.identity_threshold);
  result.columns = w.filtered.columns;
  result.num_sequences = a.num_sequences();
  result.n_eff = effective_sequences(w.weights);
  return w;
}

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

/// A fit's statistics, as stored in the contacts HDF5 file beside the predictor's options
/// (its option_list's to_json): the lambda_pair used, what was fitted and how the fit ended.
inline nlohmann::json fit_statistics(const PottsResult& result) {
  return {
      {"lambda_pair", result.lambda_pair},
      {"optimizer", "lbfgs"},
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
