#pragma once
/// Contact-prediction precision in the CASP convention: the top-scored L, L/2 and L/5 pairs
/// in three sequence-separation ranges, short (6 <= |i-j| <= 11), medium (12..23) and
/// long (>= 24).
///
/// Exact rules: a pair i < j is a candidate when its separation is in the range and the
/// truth can evaluate it (pairs without structure are skipped, not counted as wrong).
/// Candidates are ranked by score (scores[i, j], the upper triangle) descending, ties by i
/// then j ascending. Top-k takes k = max(1, floor(L / d)) for d = 1, 2, 5, or every candidate
/// when there are fewer; precision = contacts among those taken / number taken (0 when the
/// range has no candidate).

#include <cstdint>

#include "attend/bio/contact_map.hpp"
#include "attend/core/tensor.hpp"

namespace attend::bio {

/// Precision at top L, L/2, L/5 in one range, and the range's candidate and contact counts.
struct RangePrecision {
  double top_l = 0.0;
  double top_l2 = 0.0;
  double top_l5 = 0.0;
  int64_t evaluable_pairs = 0;
  int64_t true_contacts = 0;
};

/// Precision in the three ranges for a sequence of length L.
struct ContactPrecision {
  int64_t length = 0;
  RangePrecision short_range;
  RangePrecision medium_range;
  RangePrecision long_range;
};

/// Sequence-separation bounds of the CASP ranges (max -1: no upper bound).
inline constexpr int64_t kShortMin = 6, kShortMax = 11;
inline constexpr int64_t kMediumMin = 12, kMediumMax = 23;
inline constexpr int64_t kLongMin = 24;

/// Precision of the top `k` candidates with min_separation <= j - i <= max_separation
/// (max_separation < 0: no upper bound); ranking and skipping as described above.
/// scores: [L, L], finite; L must equal truth.length().
double top_k_precision(const Tensor& scores, const ContactMap& truth, int64_t min_separation,
                       int64_t max_separation, int64_t k);

/// Precision at top L, L/2, L/5 in the short, medium and long ranges. scores: [L, L].
ContactPrecision evaluate_contacts(const Tensor& scores, const ContactMap& truth);

}  // namespace attend::bio
