#include "attend/core/ops/indexing.hpp"

#include <algorithm>

#include "attend/core/error.hpp"
#include "support.hpp"

namespace attend::ops {

namespace {

void check_index(const std::vector<int64_t>& index, int64_t n_rows, const char* op) {
  for (std::size_t m = 0; m < index.size(); ++m) {
    ATTEND_CHECK(index[m] >= 0 && index[m] < n_rows, op << ": index " << index[m] << " at position "
                                                        << m << " is outside [0, " << n_rows
                                                        << ")");
  }
}

/// Values per row of a tensor of rank >= 1 (the product of all but the first dimension).
int64_t row_size(const Tensor& x, const char* op) {
  ATTEND_CHECK(x.rank() >= 1, op << " needs a tensor of rank >= 1");
  int64_t size = 1;
  for (int a = 1; a < x.rank(); ++a) size *= x.dim(a);
  return size;
}

/// Whether no value occurs twice in `index` (values in [0, n_rows)).
bool distinct(const std::vector<int64_t>& index, int64_t n_rows) {
  if (static_cast<int64_t>(index.size()) > n_rows) return false;
  std::vector<bool> seen(static_cast<std::size_t>(n_rows), false);
  for (int64_t d : index) {
    if (seen[static_cast<std::size_t>(d)]) return false;
    seen[static_cast<std::size_t>(d)] = true;
  }
  return true;
}

/// dst[index[m]] += src[m] for rows of `width` values. Without repeats in `index` (a subset
/// or permutation of rows: every destination has at most one source) directly, in parallel
/// over fixed blocks of m; else in parallel over fixed blocks of rows of dst [n_rows, width],
/// each summing its sources in increasing m (counting sort by destination). One term per
/// destination adds the same bits either way.
void scatter_add_into(const float* src, const std::vector<int64_t>& index, int64_t n_rows,
                      int64_t width, float* dst) {
  if (distinct(index, n_rows)) {
    parallel_for_blocks(static_cast<int64_t>(index.size()), detail::rows_per_block(width), [&](int64_t lo, int64_t hi) {
      for (int64_t m = lo; m < hi; ++m) {
        const float* in = src + m * width;
        float* out = dst + index[m] * width;
        for (int64_t k = 0; k < width; ++k) out[k] += in[k];
      }
    });
    return;
  }
  std::vector<int64_t> start(static_cast<std::size_t>(n_rows + 1),
                             0);  // CSR offsets by destination
  for (int64_t d : index) ++start[static_cast<std::size_t>(d + 1)];
  for (int64_t d = 0; d < n_rows; ++d) start[d + 1] += start[d];
  std::vector<int64_t> source(index.size());  // source rows, grouped by destination, stable
  std::vector<int64_t> next(start.begin(), start.end() - 1);
  for (std::size_t m = 0; m < index.size(); ++m) source[next[index[m]]++] = static_cast<int64_t>(m);
  parallel_for_blocks(n_rows, detail::rows_per_block(width), [&](int64_t lo, int64_t hi) {
    for (int64_t d = lo; d < hi; ++d) {
      float* out = dst + d * width;
      for (int64_t p = start[d]; p < start[d + 1]; ++p) {
        const float* in = src + source[p] * width;
        for (int64_t k = 0; k < width; ++k) out[k] += in[k];
      }
    }
  });
}

/// dst[m] (+)= src[index[m]] for rows of `width` values, in parallel over fixed blocks of m.
void gather_into(const float* src, const std::vector<int64_t>& index, int64_t width, float* dst,
                 bool add) {
  const int64_t m_rows = static_cast<int64_t>(index.size());
  parallel_for_blocks(m_rows, detail::rows_per_block(width), [&](int64_t lo, int64_t hi) {
    for (int64_t m = lo; m < hi; ++m) {
      const float* in = src + index[m] * width;
      float* out = dst + m * width;
      if (add) {
        for (int64_t k = 0; k < width; ++k) out[k] += in[k];
      } else {
        std::copy(in, in + width, out);
      }
    }
  });
}

}  // namespace

Var gather_rows(const Var& x, const std::vector<int64_t>& index) {
  const Tensor& xv = x.value();
  const int64_t width = row_size(xv, "gather_rows");
  const int64_t n = xv.dim(0);
  check_index(index, n, "gather_rows");
  Shape out_shape = xv.shape();
  out_shape[0] = static_cast<int64_t>(index.size());
  Tensor out(out_shape);  // [M, ...]
  gather_into(xv.data(), index, width, out.data(), false);
  return Var::from_op(std::move(out), {x}, [x, index, n, width](const Tensor&, const Tensor& gy) {
    scatter_add_into(gy.data(), index, n, width, x.grad_mut().data());
  });
}

Var scatter_add_rows(const Var& x, const std::vector<int64_t>& index, int64_t n_rows) {
  const Tensor& xv = x.value();
  const int64_t width = row_size(xv, "scatter_add_rows");
  ATTEND_CHECK(static_cast<int64_t>(index.size()) == xv.dim(0),
               "scatter_add_rows of " << shape_to_string(xv.shape()) << " with " << index.size()
                                      << " indices");
  ATTEND_CHECK(n_rows >= 0, "scatter_add_rows to " << n_rows << " rows");
  check_index(index, n_rows, "scatter_add_rows");
  Shape out_shape = xv.shape();
  out_shape[0] = n_rows;
  Tensor out(out_shape);  // [n_rows, ...]
  scatter_add_into(xv.data(), index, n_rows, width, out.data());
  return Var::from_op(std::move(out), {x}, [x, index, width](const Tensor&, const Tensor& gy) {
    gather_into(gy.data(), index, width, x.grad_mut().data(), true);
  });
}

Var embedding(const Var& weight, const std::vector<int64_t>& ids) {
  ATTEND_CHECK(weight.value().rank() == 2,
               "embedding weight must be [V, C], got " << shape_to_string(weight.shape()));
  return gather_rows(weight, ids);
}

}  // namespace attend::ops
