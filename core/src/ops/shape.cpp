#include "attend/core/ops/shape.hpp"

#include <algorithm>
#include <utility>

#include "attend/core/error.hpp"
#include "support.hpp"

namespace attend::ops {

namespace {

/// Rows (product of all but the last dimension) of a tensor of rank >= 1.
int64_t leading_rows(const Shape& shape) {
  int64_t rows = 1;
  for (std::size_t i = 0; i + 1 < shape.size(); ++i) rows *= shape[i];
  return rows;
}

/// Copies a [rows, width] block between row-major buffers with row strides `src_stride` and
/// `dst_stride` (dst += src when `add`), in parallel over fixed blocks of rows.
void copy_columns(const float* src, int64_t src_stride, float* dst, int64_t dst_stride,
                  int64_t rows, int64_t width, bool add) {
  parallel_for_blocks(rows, detail::rows_per_block(width), [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const float* s = src + r * src_stride;
      float* d = dst + r * dst_stride;
      if (add) {
        for (int64_t j = 0; j < width; ++j) d[j] += s[j];
      } else {
        std::copy(s, s + width, d);
      }
    }
  });
}

/// out = x with its axes reordered (output axis i is input axis axes[i]); out += when `add`.
void permute_into(const Tensor& x, const std::vector<int>& axes, Tensor& out, bool add) {
  const int r = x.rank();
  if (r == 0) {
    out[0] = add ? out[0] + x[0] : x[0];
    return;
  }
  std::vector<int64_t> in_stride(static_cast<std::size_t>(r), 1);
  for (int i = r - 2; i >= 0; --i) in_stride[i] = in_stride[i + 1] * x.shape()[i + 1];
  std::vector<int64_t> stride(static_cast<std::size_t>(r));  // input stride of each output axis
  for (int i = 0; i < r; ++i) stride[i] = in_stride[axes[i]];
  const Shape& os = out.shape();
  const int64_t inner = os.back(), inner_stride = stride.back();
  const int64_t outer = inner == 0 ? 0 : out.numel() / inner;
  const float* xp = x.data();
  float* op = out.data();
  parallel_for_blocks(outer, detail::rows_per_block(inner), [&](int64_t lo, int64_t hi) {
    for (int64_t row = lo; row < hi; ++row) {
      int64_t rest = row, src = 0;
      for (int i = r - 2; i >= 0; --i) {
        src += (rest % os[i]) * stride[i];
        rest /= os[i];
      }
      float* d = op + row * inner;
      for (int64_t k = 0; k < inner; ++k) {
        const float v = xp[src + k * inner_stride];
        d[k] = add ? d[k] + v : v;
      }
    }
  });
}

}  // namespace

Var concat(const std::vector<Var>& parts) {
  ATTEND_CHECK(!parts.empty(), "concat of no tensors");
  const Shape& first = parts[0].shape();
  ATTEND_CHECK(!first.empty(), "concat needs tensors of rank >= 1");
  const int64_t rows = leading_rows(first);
  int64_t total = 0;
  for (const Var& p : parts) {
    const Shape& s = p.shape();
    ATTEND_CHECK(s.size() == first.size() && std::equal(s.begin(), s.end() - 1, first.begin()),
                 "concat of " << shape_to_string(first) << " and " << shape_to_string(s)
                              << ": all but the last dimension must agree");
    total += s.back();
  }
  Shape out_shape = first;
  out_shape.back() = total;
  Tensor out(out_shape);  // [..., sum C_i]
  std::vector<int64_t> offsets;
  int64_t offset = 0;
  for (const Var& p : parts) {
    const int64_t w = p.shape().back();
    copy_columns(p.value().data(), w, out.data() + offset, total, rows, w, false);
    offsets.push_back(offset);
    offset += w;
  }
  return Var::from_op(
      std::move(out), parts, [parts, offsets, rows, total](const Tensor&, const Tensor& gy) {
        for (std::size_t k = 0; k < parts.size(); ++k) {
          if (!parts[k].requires_grad()) continue;
          const int64_t w = parts[k].shape().back();
          copy_columns(gy.data() + offsets[k], total, parts[k].grad_mut().data(), w, rows, w, true);
        }
      });
}

std::vector<Var> split(const Var& x, const std::vector<int64_t>& sizes) {
  const Tensor& xv = x.value();
  ATTEND_CHECK(xv.rank() >= 1, "split needs a tensor of rank >= 1");
  const int64_t c = xv.dim(-1);
  int64_t sum = 0;
  for (int64_t s : sizes) {
    ATTEND_CHECK(s >= 0, "split size " << s << " is negative");
    sum += s;
  }
  ATTEND_CHECK(sum == c, "split sizes add up to " << sum << " but the last axis of "
                                                  << shape_to_string(xv.shape()) << " is " << c);
  const int64_t rows = leading_rows(xv.shape());
  std::vector<Var> pieces;
  int64_t offset = 0;
  for (int64_t w : sizes) {
    Shape piece_shape = xv.shape();
    piece_shape.back() = w;
    Tensor piece(piece_shape);  // [..., w]
    copy_columns(xv.data() + offset, c, piece.data(), w, rows, w, false);
    pieces.push_back(Var::from_op(
        std::move(piece), {x}, [x, offset, rows, w, c](const Tensor&, const Tensor& gy) {
          copy_columns(gy.data(), w, x.grad_mut().data() + offset, c, rows, w, true);
        }));
    offset += w;
  }
  return pieces;
}

Var reshape(const Var& x, Shape shape) {
  const int64_t n = x.value().numel();
  int64_t known = 1, inferred = -1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      ATTEND_CHECK(inferred < 0, "reshape to " << shape_to_string(shape) << ": more than one -1");
      inferred = static_cast<int64_t>(i);
    } else {
      ATTEND_CHECK(shape[i] >= 0,
                   "reshape to " << shape_to_string(shape) << ": negative dimension");
      known *= shape[i];
    }
  }
  if (inferred >= 0) {
    ATTEND_CHECK(known > 0 && n % known == 0, "cannot reshape " << shape_to_string(x.shape())
                                                                << " to "
                                                                << shape_to_string(shape));
    shape[static_cast<std::size_t>(inferred)] = n / known;
  }
  Tensor out = x.value().reshaped(std::move(shape));  // checks the element count
  return Var::from_op(std::move(out), {x}, [x](const Tensor&, const Tensor& gy) {
    // gy's values in x's shape, without a copy; a first gradient is copied, not added to zeros
    // (the zero fill was one thread's pass over the buffer before the parallel add).
    const Tensor gx = Tensor::view(const_cast<float*>(gy.data()), x.shape());  // read only
    x.accumulate_grad(gx);
  });
}

Var permute(const Var& x, const std::vector<int>& axes) {
  const Tensor& xv = x.value();
  const int r = xv.rank();
  std::vector<int> inverse(static_cast<std::size_t>(r), -1);
  ATTEND_CHECK(static_cast<int>(axes.size()) == r, "permute of " << shape_to_string(xv.shape())
                                                                 << " needs " << r << " axes, got "
                                                                 << axes.size());
  for (int i = 0; i < r; ++i) {
    const int a = axes[static_cast<std::size_t>(i)];
    ATTEND_CHECK(a >= 0 && a < r && inverse[static_cast<std::size_t>(a)] < 0,
                 "permute axes are not a permutation of 0.." << r - 1);
    inverse[static_cast<std::size_t>(a)] = i;
  }
  Shape out_shape(static_cast<std::size_t>(r));
  for (int i = 0; i < r; ++i) out_shape[i] = xv.shape()[axes[i]];
  Tensor out(out_shape);  // [x.shape[axes[0]], ...]
  permute_into(xv, axes, out, false);
  return Var::from_op(std::move(out), {x}, [x, inverse](const Tensor&, const Tensor& gy) {
    permute_into(gy, inverse, x.grad_mut(), true);
  });
}

}  // namespace attend::ops
