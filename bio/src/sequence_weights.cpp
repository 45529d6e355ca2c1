#include "attend/bio/sequence_weights.hpp"

#include <cmath>
#include <cstdint>

#include "attend/core/error.hpp"
#include "attend/core/parallel.hpp"

namespace attend::bio {

namespace {
constexpr int64_t kRowBlock = 32;
}  // namespace

// Sequence reweighting as in CCMpred (Seemayer et al. 2014), identities counted column by
// column over the transposed alignment so the inner loop runs over sequences.
std::vector<float> sequence_weights(const Alignment& a, double identity_threshold) {
  const int64_t N = a.num_sequences();
  const int64_t L = a.length;
  ATTEND_CHECK(L <= kMaxAlignmentColumns, "sequence weights count identities in uint16, L = " << L);
  const int64_t id_threshold = static_cast<int64_t>(std::ceil(identity_threshold * static_cast<double>(L)));

  std::vector<uint8_t> by_column(static_cast<std::size_t>(N * L));  // [L, N]
  for (int64_t n = 0; n < N; ++n) {
    const uint8_t* row = a.row(n);
    for (int64_t k = 0; k < L; ++k) by_column[static_cast<std::size_t>(k * N + n)] = row[k];
  }

  std::vector<float> weights(static_cast<std::size_t>(N));
  parallel_for_blocks(N, kRowBlock, [&](int64_t lo, int64_t hi) {
    std::vector<uint16_t> identical(static_cast<std::size_t>(N));  // [N]
    uint16_t* ids = identical.data();
    for (int64_t n = lo; n < hi; ++n) {
      std::fill(identical.begin(), identical.end(), uint16_t{0});
      const uint8_t* row = a.row(n);
      for (int64_t k = 0; k < L; ++k) {
        const uint8_t code = row[k];
        const uint8_t* column = by_column.data() + k * N;
        for (int64_t m = 0; m < N; ++m) ids[m] = static_cast<uint16_t>(ids[m] + (column[m] == code));
      }
      int64_t neighbours = 0;
      for (int64_t m = 0; m < N; ++m) neighbours += ids[m] > id_threshold;
      neighbours -= ids[n] > id_threshold;  // not itself
      weights[static_cast<std::size_t>(n)] = static_cast<float>(1.0 / static_cast<double>(1 + neighbours));
    }
  });
  return weights;
}

double effective_sequences(const std::vector<float>& weights) {
  double sum = 0.0;
  for (float w : weights) sum += w;
  return sum;
}

}  // namespace attend::bio
