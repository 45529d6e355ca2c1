#include <catch2/catch.hpp>

#include <array>
#include <cmath>

#include "attend/bio/alignment.hpp"
#include "attend/bio/alphabet.hpp"
#include "attend/bio/sequence_weights.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/random.hpp"

using namespace attend;
using namespace attend::bio;

namespace {
// Families of near-duplicates: `families` random ancestors, each copied `copies` times with
// a few random substitutions (gaps included), so identities straddle the threshold.
Alignment random_alignment(int64_t families, int64_t copies, int64_t L, uint64_t seed) {
  Rng rng(seed);
  Alignment a;
  a.length = L;
  for (int64_t f = 0; f < families; ++f) {
    std::vector<uint8_t> ancestor(static_cast<std::size_t>(L));
    for (auto& c : ancestor) c = static_cast<uint8_t>(rng.below(kNumStates));
    for (int64_t c = 0; c < copies; ++c) {
      std::vector<uint8_t> row = ancestor;
      const uint64_t changes = rng.below(static_cast<uint64_t>(L / 3));
      for (uint64_t t = 0; t < changes; ++t) row[rng.below(static_cast<uint64_t>(L))] = static_cast<uint8_t>(rng.below(kNumStates));
      a.codes.insert(a.codes.end(), row.begin(), row.end());
      a.names.push_back("f" + std::to_string(f) + "c" + std::to_string(c));
    }
  }
  return a;
}

// The definition, pair by pair, O(N^2 L): neighbours have more than ceil(0.8 L) equal codes.
std::vector<float> naive_weights(const Alignment& a, double threshold) {
  const int64_t N = a.num_sequences(), L = a.length;
  const int64_t limit = static_cast<int64_t>(std::ceil(threshold * static_cast<double>(L)));
  std::vector<float> w;
  for (int64_t n = 0; n < N; ++n) {
    int64_t neighbours = 0;
    for (int64_t m = 0; m < N; ++m) {
      if (m == n) continue;
      int64_t same = 0;
      for (int64_t k = 0; k < L; ++k) same += a.row(n)[k] == a.row(m)[k];
      neighbours += same > limit;
    }
    w.push_back(static_cast<float>(1.0 / static_cast<double>(1 + neighbours)));
  }
  return w;
}
}  // namespace

TEST_CASE("sequence weights on a hand example", "[bio]") {
  // L = 10, ceil(0.8 * 10) = 8: neighbours need 9 or 10 equal columns.
  Alignment a;
  a.length = 10;
  for (const std::string row : {"ARNDCQEGHI", "ARNDCQEGHI", "ARNDCQEGHV", "ARNDCQEGWV", "----------"}) {
    a.names.push_back(row);
    for (char c : row) a.codes.push_back(residue_code(c));
  }
  // Rows 0, 1, 2 are mutual neighbours (10, 9, 9 equal); row 3 has 9 equal with row 2 and
  // 8 with rows 0, 1; row 4 has none.
  const std::vector<float> w = sequence_weights(a);
  CHECK(w == std::vector<float>{1.0f / 3, 1.0f / 3, 1.0f / 4, 1.0f / 2, 1.0f});
  CHECK(effective_sequences(w) == Approx(1.0 / 3 + 1.0 / 3 + 0.25 + 0.5 + 1.0));
}

TEST_CASE("sequence weights equal the naive pairwise count", "[bio]") {
  const std::vector<std::array<int64_t, 3>> shapes = {{40, 5, 37}, {7, 30, 75}, {1, 70, 12}};
  for (const auto& [families, copies, L] : shapes) {
    const Alignment a = random_alignment(families, copies, L, 1000 + static_cast<uint64_t>(L));
    for (double threshold : {0.8, 0.62}) {
      const std::vector<float> w = sequence_weights(a, threshold);
      CHECK(w == naive_weights(a, threshold));
    }
  }
}

TEST_CASE("sequence weights are bit-identical for 1 and 2 threads", "[bio]") {
  const Alignment a = random_alignment(30, 11, 53, 7);  // 330 rows: several blocks of 32
  const int saved = num_threads();
  set_num_threads(1);
  const std::vector<float> one = sequence_weights(a);
  set_num_threads(2);
  const std::vector<float> two = sequence_weights(a);
  set_num_threads(saved);
  CHECK(one == two);
  CHECK(effective_sequences(one) == effective_sequences(two));
  // The families keep N_eff well below N: the test data does exercise the threshold.
  CHECK(effective_sequences(one) < 0.9 * static_cast<double>(a.num_sequences()));
}
