#include "attend/bio/contact_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "attend/core/error.hpp"

namespace attend::bio {

namespace {
struct Candidate {
  float score;
  int64_t i, j;
  bool contact;
};

// Evaluable pairs of the range, best first (score descending, then i, then j).
std::vector<Candidate> ranked_candidates(const Tensor& scores, const ContactMap& truth,
                                         int64_t min_separation, int64_t max_separation) {
  const int64_t L = truth.length();
  ATTEND_CHECK(scores.rank() == 2 && scores.dim(0) == L && scores.dim(1) == L,
               "scores must be [L, L] with L = " << L << ", got " << shape_to_string(scores.shape()));
  std::vector<Candidate> out;
  for (int64_t i = 0; i < L; ++i) {
    for (int64_t j = i + std::max<int64_t>(min_separation, 1); j < L; ++j) {
      if (max_separation >= 0 && j - i > max_separation) break;
      if (!truth.evaluable(i, j)) continue;
      const float s = scores[i * L + j];
      ATTEND_CHECK(std::isfinite(s), "score (" << i << ", " << j << ") is not finite");
      out.push_back({s, i, j, truth.contact(i, j)});
    }
  }
  // Generated in (i, j) order, so a stable sort by score alone gives the documented ties.
  std::stable_sort(out.begin(), out.end(),
                   [](const Candidate& a, const Candidate& b) { return a.score > b.score; });
  return out;
}

double precision_of_top(const std::vector<Candidate>& ranked, int64_t k) {
  const int64_t taken = std::min<int64_t>(k, static_cast<int64_t>(ranked.size()));
  if (taken == 0) return 0.0;
  int64_t hits = 0;
  for (int64_t t = 0; t < taken; ++t) hits += ranked[static_cast<std::size_t>(t)].contact;
  return static_cast<double>(hits) / static_cast<double>(taken);
}

RangePrecision range_precision(const Tensor& scores, const ContactMap& truth, int64_t min_separation,
                               int64_t max_separation) {
  const int64_t L = truth.length();
  const auto ranked = ranked_candidates(scores, truth, min_separation, max_separation);
  RangePrecision r;
  r.top_l = precision_of_top(ranked, std::max<int64_t>(1, L));
  r.top_l2 = precision_of_top(ranked, std::max<int64_t>(1, L / 2));
  r.top_l5 = precision_of_top(ranked, std::max<int64_t>(1, L / 5));
  r.evaluable_pairs = static_cast<int64_t>(ranked.size());
  r.true_contacts = std::count_if(ranked.begin(), ranked.end(), [](const Candidate& c) { return c.contact; });
  return r;
}
}  // namespace

double top_k_precision(const Tensor& scores, const ContactMap& truth, int64_t min_separation,
                       int64_t max_separation, int64_t k) {
  ATTEND_CHECK(k >= 1, "k must be positive, got " << k);
  return precision_of_top(ranked_candidates(scores, truth, min_separation, max_separation), k);
}

ContactPrecision evaluate_contacts(const Tensor& scores, const ContactMap& truth) {
  ContactPrecision p;
  p.length = truth.length();
  p.short_range = range_precision(scores, truth, kShortMin, kShortMax);
  p.medium_range = range_precision(scores, truth, kMediumMin, kMediumMax);
  p.long_range = range_precision(scores, truth, kLongMin, -1);
  return p;
}

}  // namespace attend::bio
