#include "support.hpp"

#include <array>
#include <cmath>

namespace attend::ops::detail {

void sum_rows_into(const float* g, const float* w, int64_t rows, int64_t cols, float sign,
                   float* out) {
  if (rows <= 0 || cols <= 0) return;
  constexpr int64_t kWide = 256;  // columns per block when rows are wide
  auto product = [g, w](int64_t i) {
    return w ? static_cast<double>(g[i]) * static_cast<double>(w[i]) : static_cast<double>(g[i]);
  };
  if (cols >= kWide) {
    parallel_for_blocks(cols, kWide, [&](int64_t c0, int64_t c1) {
      std::array<double, kWide> acc{};
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t base = r * cols;
        for (int64_t j = c0; j < c1; ++j)
          acc[static_cast<std::size_t>(j - c0)] += product(base + j);
      }
      for (int64_t j = c0; j < c1; ++j)
        out[j] += sign * static_cast<float>(acc[static_cast<std::size_t>(j - c0)]);
    });
    return;
  }
  const int64_t chunk = rows_per_block(cols);
  const int64_t n_chunks = (rows + chunk - 1) / chunk;
  std::vector<double> partial(static_cast<std::size_t>(n_chunks * cols), 0.0);  // [n_chunks, cols]
  parallel_for_blocks(rows, chunk, [&](int64_t r0, int64_t r1) {
    double* acc = partial.data() + (r0 / chunk) * cols;
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t base = r * cols;
      for (int64_t j = 0; j < cols; ++j) acc[j] += product(base + j);
    }
  });
  for (int64_t j = 0; j < cols; ++j) {
    double s = 0.0;
    for (int64_t c = 0; c < n_chunks; ++c) s += partial[static_cast<std::size_t>(c * cols + j)];
    out[j] += sign * static_cast<float>(s);
  }
}

double log_sum_exp(const float* x, int64_t n) {
  const double m = *std::max_element(x, x + n);
  double s = 0.0;
  for (int64_t j = 0; j < n; ++j) s += std::exp(static_cast<double>(x[j]) - m);
  return m + std::log(s);
}

void add_into(float* dst, const float* src, int64_t n) {
  parallel_for_blocks(n, kBlock, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) dst[i] += src[i];
  });
}

}  // namespace attend::ops::detail
