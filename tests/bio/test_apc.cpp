#include <catch2/catch.hpp>

#include "attend/bio/apc.hpp"
#include "attend/bio/alphabet.hpp"

using namespace attend;
using namespace attend::bio;

TEST_CASE("APC on a hand-computed 3 x 3 example", "[bio]") {
  // Off-diagonal s01 = 1, s02 = 2, s12 = 3. Row means over the other two positions:
  // m0 = 1.5, m1 = 2, m2 = 2.5; overall mean m = 2.
  // s'01 = 1 - 1.5 * 2 / 2 = -0.5, s'02 = 2 - 1.5 * 2.5 / 2 = 0.125, s'12 = 3 - 2 * 2.5 / 2 = 0.5.
  Tensor s({3, 3}, std::vector<float>{0, 1, 2, 1, 0, 3, 2, 3, 0});
  const Tensor c = average_product_correction(s);
  CHECK(c.at({0, 1}) == Approx(-0.5));
  CHECK(c.at({0, 2}) == Approx(0.125));
  CHECK(c.at({1, 2}) == Approx(0.5));
  CHECK(c.at({1, 0}) == c.at({0, 1}));
  CHECK(c.at({2, 1}) == c.at({1, 2}));
  for (int64_t i = 0; i < 3; ++i) CHECK(c.at({i, i}) == 0.0f);
}

TEST_CASE("coupling norms leave out the gap state", "[bio]") {
  Tensor J({3, 3, kNumStates, kNumStates});
  // Pair (0, 1): a 3-4-5 block plus large gap entries that must not count.
  for (auto [i, j] : {std::pair<int64_t, int64_t>{0, 1}, {1, 0}}) {
    J.at({i, j, 2, 5}) = 3.0f;
    J.at({i, j, 7, 1}) = 4.0f;
    J.at({i, j, 20, 3}) = 100.0f;
    J.at({i, j, 6, 20}) = 100.0f;
  }
  J.at({0, 0, 1, 1}) = 9.0f;  // a diagonal block is ignored
  const Tensor s = coupling_norms(J);
  CHECK(s.at({0, 1}) == Approx(5.0));
  CHECK(s.at({1, 0}) == Approx(5.0));
  CHECK(s.at({0, 2}) == 0.0f);
  CHECK(s.at({0, 0}) == 0.0f);
}
