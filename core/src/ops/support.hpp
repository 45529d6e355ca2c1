#pragma once
/// Helpers shared by the ops (private to attend::core): fixed-block parallel loops and
/// reductions, and small scalar functions.
///
/// Every parallel helper cuts its work into blocks whose edges depend only on the problem size, and
/// every reduction adds its block partials in block order, so results are bit-identical for
/// any thread count (see parallel.hpp).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "attend/core/parallel.hpp"
#include "attend/core/tensor.hpp"

namespace attend::ops::detail {

/// Elements per block for elementwise loops and flat reductions.
inline constexpr int64_t kBlock = int64_t{1} << 14;

/// Rows per block for row-wise kernels on rows of `cols` values (about kBlock values a block).
inline int64_t rows_per_block(int64_t cols) {
  return std::max<int64_t>(1, kBlock / std::max<int64_t>(cols, 1));
}

/// Calls fn(offset) with the flat offset of every row of `cols` values among `rows`, in
/// parallel over fixed blocks of rows; each row is handled by exactly one thread.
template <class Fn>
void for_each_row(int64_t rows, int64_t cols, Fn&& fn) {
  parallel_for_blocks(rows, rows_per_block(cols), [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) fn(r * cols);
  });
}

/// Sum of `term(i)` for i in [0, n), in double. Blocks of `block` terms are summed in parallel,
/// each serially in index order; the block partials are then added in block order.
template <class Term>
double block_sum(int64_t n, int64_t block, Term&& term) {
  if (n <= 0) return 0.0;
  block = std::max<int64_t>(block, 1);
  const int64_t n_blocks = (n + block - 1) / block;
  std::vector<double> partial(static_cast<std::size_t>(n_blocks), 0.0);
  parallel_for_blocks(n, block, [&](int64_t lo, int64_t hi) {
    double s = 0.0;
    for (int64_t i = lo; i < hi; ++i) s += term(i);
    partial[static_cast<std::size_t>(lo / block)] = s;
  });
  double total = 0.0;
  for (double s : partial) total += s;
  return total;
}

/// out[j] += sign * sum_r g[r, j] * w[r, j] over the rows of g [rows, cols] (w may be null,
/// meaning 1): the gradient of a row-broadcast operand. Sums run in double in a fixed order:
/// wide rows are split over blocks of columns, each summing all rows in order; narrow rows
/// are split over fixed chunks of rows whose partials are added in chunk order.
void sum_rows_into(const float* g, const float* w, int64_t rows, int64_t cols, float sign,
                   float* out);

/// 1 / (1 + exp(-v)) without overflow: exp is only taken of a non-positive number.
inline float stable_sigmoid(float v) {
  if (v >= 0.0f) return 1.0f / (1.0f + std::exp(-v));
  const float e = std::exp(v);
  return e / (1.0f + e);
}

/// log(sum_j exp(x[j])) over n > 0 values, max-subtracted, summed in double in index order.
double log_sum_exp(const float* x, int64_t n);

/// dst[i] += src[i] for i in [0, n), in parallel over fixed blocks.
void add_into(float* dst, const float* src, int64_t n);

}  // namespace attend::ops::detail
