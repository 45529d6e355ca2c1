#include "attend/core/ops/elementwise.hpp"

#include <algorithm>

#include "attend/core/error.hpp"
#include "support.hpp"

namespace attend::ops {

namespace {

enum class BinaryKind { kAdd, kSub, kMul };

/// How b repeats over a: `rows` copies of b's `cols` values.
struct Broadcast {
  int64_t rows = 0;
  int64_t cols = 0;
};

Broadcast broadcast_of(const Tensor& a, const Tensor& b, const char* op) {
  const Shape& as = a.shape();
  const Shape& bs = b.shape();
  const bool trailing =
      bs.size() <= as.size() &&
      std::equal(bs.begin(), bs.end(), as.end() - static_cast<std::ptrdiff_t>(bs.size()));
  ATTEND_CHECK(trailing, op << " of " << shape_to_string(as) << " and " << shape_to_string(bs)
                            << ": b must have a's shape or a's trailing dimensions");
  Broadcast bc;
  bc.cols = b.numel();
  bc.rows = bc.cols == 0 ? 0 : a.numel() / bc.cols;
  return bc;
}

/// Calls fn(i, j) for every element i of a [rows * cols] with j = i mod cols, in parallel
/// over fixed blocks of elements; within a block, one loop per stretch of a row, where
/// j = i - (the row's first element), so the compiler vectorises it.
template <class Fn>
void for_each_broadcast(const Broadcast& bc, Fn&& fn) {
  parallel_for_blocks(bc.rows * bc.cols, detail::kBlock, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi;) {
      const int64_t row_start = i - i % bc.cols;
      const int64_t end = std::min(hi, row_start + bc.cols);
      for (; i < end; ++i) fn(i, i - row_start);
    }
  });
}

Var binary(const Var& a, const Var& b, BinaryKind kind, const char* name) {
  const Tensor& av = a.value();
  const Tensor& bv = b.value();
  const Broadcast bc = broadcast_of(av, bv, name);
  Tensor out = Tensor::uninitialized(av.shape());  // a's shape
  const float* ap = av.data();
  const float* bp = bv.data();
  float* op = out.data();
  switch (kind) {
    case BinaryKind::kAdd:
      for_each_broadcast(bc, [&](int64_t i, int64_t j) { op[i] = ap[i] + bp[j]; });
      break;
    case BinaryKind::kSub:
      for_each_broadcast(bc, [&](int64_t i, int64_t j) { op[i] = ap[i] - bp[j]; });
      break;
    case BinaryKind::kMul:
      for_each_broadcast(bc, [&](int64_t i, int64_t j) { op[i] = ap[i] * bp[j]; });
      break;
  }
  return Var::from_op(std::move(out), {a, b}, [a, b, bc, kind](const Tensor&, const Tensor& gy) {
    const float* g = gy.data();
    if (a.requires_grad()) {
      if (kind == BinaryKind::kMul) {
        float* ga = a.grad_mut().data();
        const float* bp = b.value().data();
        for_each_broadcast(bc, [&](int64_t i, int64_t j) { ga[i] += g[i] * bp[j]; });
      } else {
        a.accumulate_grad(gy);  // a first gradient is copied, not added to zeros
      }
    }
    if (b.requires_grad() && kind == BinaryKind::kAdd && b.value().shape() == gy.shape()) {
      b.accumulate_grad(gy);  // b of a's shape (a residual add)
    } else if (b.requires_grad()) {
      const float* weight = kind == BinaryKind::kMul ? a.value().data() : nullptr;
      const float sign = kind == BinaryKind::kSub ? -1.0f : 1.0f;
      detail::sum_rows_into(g, weight, bc.rows, bc.cols, sign, b.grad_mut().data());
    }
  });
}

}  // namespace

Var add(const Var& a, const Var& b) { return binary(a, b, BinaryKind::kAdd, "add"); }
Var sub(const Var& a, const Var& b) { return binary(a, b, BinaryKind::kSub, "sub"); }
Var mul(const Var& a, const Var& b) { return binary(a, b, BinaryKind::kMul, "mul"); }

Var scale(const Var& a, float factor) {
  const Tensor& av = a.value();
  Tensor out = Tensor::uninitialized(av.shape());  // a's shape
  const float* ap = av.data();
  float* op = out.data();
  parallel_for_blocks(av.numel(), detail::kBlock, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) op[i] = ap[i] * factor;
  });
  return Var::from_op(std::move(out), {a}, [a, factor](const Tensor&, const Tensor& gy) {
    float* ga = a.grad_mut().data();
    const float* g = gy.data();
    parallel_for_blocks(gy.numel(), detail::kBlock, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) ga[i] += g[i] * factor;
    });
  });
}

}  // namespace attend::ops
