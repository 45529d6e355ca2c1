#include "attend/bio/contact_features.hpp"

#include <algorithm>
#include <cmath>

#include "attend/bio/alphabet.hpp"
#include "attend/bio/potts_predictor.hpp"
#include "attend/bio/sequence_weights.hpp"
#include "attend/core/error.hpp"
#include "attend/core/io/input_path.hpp"

namespace attend::bio {

FamilyFeatures make_family_features(const AlignmentFeatures& features, const std::string& name) {
  const Alignment& a = features.alignment;
  const int64_t N = a.num_sequences(), L = a.length;
  if (features.scores.numel() == 0) {
    throw InputError(name, 0, "the alignment file has no coevolution scores (write it with 'attend convert --with-scores')");
  }
  if (features.scores.shape() != Shape{L, L}) {
    throw InputError(name, 0, "scores are " + shape_to_string(features.scores.shape()) + " for " + std::to_string(L) +
                                  " columns");
  }
  if (static_cast<int64_t>(features.weights.size()) != N || N == 0) {
    throw InputError(name, 0, "expected one weight per sequence and at least one sequence");
  }
  if (a.query != 0) throw InputError(name, 0, "the query must be row 0 of the alignment");
  FamilyFeatures f;
  f.name = name;
  f.alignment = a;

  // Weighted column profile, summed in double in row order.
  std::vector<double> counts(static_cast<std::size_t>(L * kNumStates), 0.0);
  double total = 0.0;
  for (int64_t n = 0; n < N; ++n) {
    const double w = features.weights[n];
    total += w;
    const uint8_t* row = a.row(n);
    for (int64_t i = 0; i < L; ++i) counts[i * kNumStates + row[i]] += w;
  }
  f.profile = Tensor({L, kNumStates});  // [L, 21]
  for (int64_t k = 0; k < L * kNumStates; ++k) f.profile[k] = total > 0 ? static_cast<float>(counts[k] / total) : 0.0f;

  // Standardised scores over the off-diagonal pairs.
  double sum = 0.0, sum_sq = 0.0;
  const int64_t pairs = L * (L - 1);
  for (int64_t i = 0; i < L; ++i)
    for (int64_t j = 0; j < L; ++j)
      if (i != j) sum += features.scores[i * L + j];
  const double mean = pairs > 0 ? sum / static_cast<double>(pairs) : 0.0;
  for (int64_t i = 0; i < L; ++i)
    for (int64_t j = 0; j < L; ++j)
      if (i != j) sum_sq += (features.scores[i * L + j] - mean) * (features.scores[i * L + j] - mean);
  const double sd = pairs > 0 ? std::sqrt(sum_sq / static_cast<double>(pairs)) : 0.0;
  const double inv = sd > 1e-12 ? 1.0 / sd : 0.0;
  f.scores = Tensor({L, L});  // [L, L]
  for (int64_t i = 0; i < L; ++i)
    for (int64_t j = 0; j < L; ++j) {
      const double s = 0.5 * (features.scores[i * L + j] + features.scores[j * L + i]);
      f.scores[i * L + j] = i == j ? 0.0f : static_cast<float>((s - mean) * inv);
    }
  return f;
}

FamilyFeatures load_family_features(const std::string& path) {
  io::require_input_file(path);
  const std::string name = path;
  if (is_hdf5_file(path)) return make_family_features(read_alignment_h5(path), name);
  AlignmentFeatures f;
  f.alignment = read_alignment(path);
  if (f.alignment.length < 3) throw InputError(path, 0, "contact prediction needs at least 3 columns");
  f.identity_threshold = kDefaultIdentityThreshold;
  f.weights = sequence_weights(f.alignment, f.identity_threshold);
  f.n_eff = effective_sequences(f.weights);
  f.scores = predict_contacts_potts(f.alignment).scores;
  return make_family_features(f, name);
}

ContactModelInput make_model_input(const FamilyFeatures& family, int64_t begin, int64_t width,
                                   const std::vector<int64_t>& rows, bool neighbour_scores) {
  const Alignment& a = family.alignment;
  const int64_t L = a.length, S = static_cast<int64_t>(rows.size());
  ATTEND_CHECK(begin >= 0 && width >= 1 && begin + width <= L,
               "window [" << begin << ", " << begin + width << ") outside " << L << " residues");
  ATTEND_CHECK(S >= 1 && rows[0] == 0, "the first row must be the query");
  ContactModelInput in;
  in.msa = Tensor({S, width, kMsaFeatures}, 0.0f);  // [S, W, 42]
  for (int64_t s = 0; s < S; ++s) {
    ATTEND_CHECK(rows[s] >= 0 && rows[s] < a.num_sequences(), "row " << rows[s] << " out of range");
    const uint8_t* row = a.row(rows[s]);
    for (int64_t i = 0; i < width; ++i) {
      float* out = in.msa.data() + (s * width + i) * kMsaFeatures;
      out[row[begin + i]] = 1.0f;
      std::copy_n(family.profile.data() + (begin + i) * kNumStates, kNumStates, out + kNumStates);
    }
  }
  in.target = Tensor({width, kTargetFeatures}, 0.0f);  // [W, 21]
  for (int64_t i = 0; i < width; ++i) in.target[i * kTargetFeatures + a.row(0)[begin + i]] = 1.0f;
  const int64_t F = pair_feature_count(neighbour_scores);
  // The standardised score at family positions (a, b); 0 outside the family.
  auto score = [&](int64_t a, int64_t b) {
    return a >= 0 && a < L && b >= 0 && b < L ? family.scores[a * L + b] : 0.0f;
  };
  in.pair = Tensor({width, width, F});  // [W, W, F]
  for (int64_t i = 0; i < width; ++i)
    for (int64_t j = 0; j < width; ++j) {
      const int64_t a = begin + i, b = begin + j;
      float* out = in.pair.data() + (i * width + j) * F;
      out[0] = score(a, b);
      if (!neighbour_scores) continue;
      out[1] = 0.25f * (score(a - 1, b) + score(a + 1, b) + score(a, b - 1) + score(a, b + 1));
      out[2] = 0.5f * (score(a - 1, b - 1) + score(a + 1, b + 1));
      out[3] = 0.5f * (score(a - 1, b + 1) + score(a + 1, b - 1));
    }
  in.positions.resize(static_cast<std::size_t>(width));
  for (int64_t i = 0; i < width; ++i) in.positions[i] = begin + i;
  return in;
}

std::vector<int64_t> sample_rows(int64_t num_sequences, int64_t depth, Rng& rng) {
  ATTEND_CHECK(depth >= 1 && num_sequences >= 1, "sample_rows needs depth >= 1 and a query");
  std::vector<int64_t> rows(static_cast<std::size_t>(num_sequences));
  for (int64_t n = 0; n < num_sequences; ++n) rows[n] = n;
  if (num_sequences <= depth) return rows;
  // Partial Fisher-Yates over rows 1..N-1: the first depth - 1 slots after the query.
  for (int64_t k = 1; k < depth; ++k) {
    const int64_t pick = k + static_cast<int64_t>(rng.below(static_cast<uint64_t>(num_sequences - k)));
    std::swap(rows[k], rows[pick]);
  }
  rows.resize(static_cast<std::size_t>(depth));
  std::sort(rows.begin() + 1, rows.end());
  return rows;
}

}  // namespace attend::bio
