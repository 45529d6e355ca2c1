#include <catch2/catch.hpp>

#include "attend/bio/contact_metrics.hpp"
#include "attend/core/error.hpp"

using namespace attend;
using namespace attend::bio;

namespace {
void set_score(Tensor& s, int64_t i, int64_t j, float v) {
  s.at({i, j}) = v;
  s.at({j, i}) = v;
}
}  // namespace

// L = 30, so top L / L/2 / L/5 take 30 / 15 / 6 pairs. Every count below was done by hand.
TEST_CASE("contact precision on a hand-made score matrix", "[bio]") {
  const int64_t L = 30;
  ContactMap truth(L);
  Tensor scores({L, L});  // 0 everywhere unless set

  // Short range (6..11): only four pairs have structure.
  //   (0,7) 2.0 no, (0,6) 1.0 yes, (10,20) 0.5 yes, (3,14) -1 yes  -> 4 candidates, 3 contacts
  truth.set(0, 6, 5.0f, true);
  truth.set(0, 7, 9.0f, false);
  truth.set(10, 20, 6.0f, true);
  truth.set(3, 14, 7.0f, true);
  set_score(scores, 0, 6, 1.0f);
  set_score(scores, 0, 7, 2.0f);
  set_score(scores, 10, 20, 0.5f);
  set_score(scores, 3, 14, -1.0f);
  set_score(scores, 1, 8, 50.0f);  // no structure: skipped although it scores highest

  // Medium (12..23) and long (>= 24): every pair has structure, no contact, except as set
  // below; (0,24) and (5,20) have no structure.
  for (int64_t i = 0; i < L; ++i) {
    for (int64_t j = i + 12; j < L; ++j) {
      if ((i == 0 && j == 24) || (i == 5 && j == 20)) continue;
      truth.set(i, j, 20.0f, false);
    }
  }
  // Medium: 150 pairs with separation 12..23, 149 with structure; one contact, ranked first.
  truth.set(4, 16, 6.0f, true);
  set_score(scores, 4, 16, 9.0f);
  set_score(scores, 5, 20, 100.0f);  // no structure

  // Long: 21 pairs with separation >= 24, 20 with structure, contacts (0,25), (1,29),
  // (2,26), (5,29). Ranking: (1,29) 5 yes, (0,25) 4 yes, (3,27) 3 no, then the 17 ties at
  // 0 by (i, j): (0,26) (0,27) (0,28) | (0,29) (1,25) (1,26) (1,27) (1,28) (2,26)yes (2,27)
  // (2,28) (2,29) | (3,28) (3,29) (4,28) (4,29) (5,29)yes.
  truth.set(0, 25, 7.0f, true);
  truth.set(1, 29, 7.0f, true);
  truth.set(2, 26, 7.0f, true);
  truth.set(5, 29, 7.0f, true);
  set_score(scores, 1, 29, 5.0f);
  set_score(scores, 0, 25, 4.0f);
  set_score(scores, 3, 27, 3.0f);
  set_score(scores, 0, 24, 10.0f);  // no structure

  const ContactPrecision p = evaluate_contacts(scores, truth);
  CHECK(p.length == 30);

  CHECK(p.short_range.evaluable_pairs == 4);
  CHECK(p.short_range.true_contacts == 3);
  CHECK(p.short_range.top_l5 == 0.75);  // 6 asked, 4 available: 3 / 4
  CHECK(p.short_range.top_l2 == 0.75);
  CHECK(p.short_range.top_l == 0.75);

  CHECK(p.medium_range.evaluable_pairs == 149);
  CHECK(p.medium_range.true_contacts == 1);
  CHECK(p.medium_range.top_l5 == Approx(1.0 / 6));
  CHECK(p.medium_range.top_l2 == Approx(1.0 / 15));
  CHECK(p.medium_range.top_l == Approx(1.0 / 30));

  CHECK(p.long_range.evaluable_pairs == 20);
  CHECK(p.long_range.true_contacts == 4);
  CHECK(p.long_range.top_l5 == Approx(2.0 / 6));   // ranks 1..6
  CHECK(p.long_range.top_l2 == Approx(3.0 / 15));  // ranks 1..15 include (2,26)
  CHECK(p.long_range.top_l == Approx(4.0 / 20));   // all 20

  CHECK(top_k_precision(scores, truth, kLongMin, -1, 1) == 1.0);
  CHECK(top_k_precision(scores, truth, kLongMin, -1, 3) == Approx(2.0 / 3));
  CHECK(top_k_precision(scores, truth, 6, -1, 1) == 1.0);  // (0,24) skipped, (5,20) skipped
}

TEST_CASE("top L/5 takes at least one pair for short sequences", "[bio]") {
  // L = 8: floor(8/5) = 1, floor(8/2) = 4. Short-range pairs: (0,6), (0,7), (1,7).
  ContactMap truth(8);
  Tensor scores({8, 8});
  truth.set(1, 7, 5.0f, true);
  truth.set(0, 6, 9.0f, false);
  truth.set(0, 7, 5.0f, true);
  scores.at({1, 7}) = 3.0f;
  scores.at({0, 6}) = 2.0f;
  scores.at({0, 7}) = 1.0f;
  const ContactPrecision p = evaluate_contacts(scores, truth);
  CHECK(p.short_range.top_l5 == 1.0);                // (1,7)
  CHECK(p.short_range.top_l2 == Approx(2.0 / 3));    // all three
  CHECK(p.short_range.top_l == Approx(2.0 / 3));
  CHECK(p.long_range.evaluable_pairs == 0);
  CHECK(p.long_range.top_l == 0.0);
}

TEST_CASE("contact metrics check the score shape", "[bio]") {
  ContactMap truth(8);
  CHECK_THROWS_AS(evaluate_contacts(Tensor({8, 7}), truth), Error);
}
