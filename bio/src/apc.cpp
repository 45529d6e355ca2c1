#include "attend/bio/apc.hpp"

#include <cmath>
#include <vector>

#include "attend/bio/alphabet.hpp"
#include "attend/core/error.hpp"
#include "attend/core/parallel.hpp"

namespace attend::bio {

Tensor coupling_norms(const Tensor& couplings) {
  ATTEND_CHECK(couplings.rank() == 4 && couplings.dim(0) == couplings.dim(1) &&
                   couplings.dim(2) == kNumStates && couplings.dim(3) == kNumStates,
               "expected couplings [L, L, 21, 21], got " << shape_to_string(couplings.shape()));
  const int64_t L = couplings.dim(0);
  constexpr int64_t kBlock = int64_t{kNumStates} * kNumStates;
  Tensor out({L, L});  // [L, L]
  parallel_for(0, L, [&](int64_t i) {
    for (int64_t j = 0; j < L; ++j) {
      if (j == i) continue;
      const float* block = couplings.data() + (i * L + j) * kBlock;  // [21, 21]
      double sum = 0.0;
      for (int a = 0; a < kNumAminoAcids; ++a)
        for (int b = 0; b < kNumAminoAcids; ++b) {
          const double v = block[a * kNumStates + b];
          sum += v * v;
        }
      out[i * L + j] = static_cast<float>(std::sqrt(sum));
    }
  });
  return out;
}

// Average product correction, Dunn, Wahl & Gloor (2008), eq. 5 with MI replaced by the
// coupling norm.
Tensor average_product_correction(const Tensor& scores) {
  ATTEND_CHECK(scores.rank() == 2 && scores.dim(0) == scores.dim(1),
               "expected square scores [L, L], got " << shape_to_string(scores.shape()));
  const int64_t L = scores.dim(0);
  ATTEND_CHECK(L >= 3, "APC needs L >= 3, got " << L);
  std::vector<double> row_mean(static_cast<std::size_t>(L), 0.0);
  double total = 0.0;
  for (int64_t i = 0; i < L; ++i) {
    double sum = 0.0;
    for (int64_t j = 0; j < L; ++j)
      if (j != i) sum += scores[i * L + j];
    total += sum;
    row_mean[static_cast<std::size_t>(i)] = sum / static_cast<double>(L - 1);
  }
  const double mean = total / static_cast<double>(L * (L - 1));
  Tensor out({L, L});  // [L, L]
  for (int64_t i = 0; i < L; ++i)
    for (int64_t j = 0; j < L; ++j) {
      if (j == i) continue;
      const double correction = mean == 0.0 ? 0.0 : row_mean[i] * row_mean[j] / mean;
      out[i * L + j] = static_cast<float>(scores[i * L + j] - correction);
    }
  return out;
}

}  // namespace attend::bio
