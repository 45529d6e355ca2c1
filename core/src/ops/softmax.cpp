#include "attend/core/ops/softmax.hpp"

#include <algorithm>
#include <cmath>

#include "attend/core/error.hpp"
#include "support.hpp"

namespace attend::ops {

namespace {

int64_t last_axis(const Tensor& x, const char* op) {
  ATTEND_CHECK(x.rank() >= 1 && x.dim(-1) > 0,
               op << " needs a non-empty last axis, got " << shape_to_string(x.shape()));
  return x.dim(-1);
}

}  // namespace

Var softmax(const Var& x) {
  const Tensor& xv = x.value();
  const int64_t c = last_axis(xv, "softmax");
  const int64_t rows = xv.numel() / c;
  Tensor out(xv.shape());  // [..., C]
  detail::for_each_row(rows, c, [&](int64_t off) {
    const float* xr = xv.data() + off;
    float* yr = out.data() + off;
    const float m = *std::max_element(xr, xr + c);
    double s = 0.0;
    for (int64_t j = 0; j < c; ++j) {
      yr[j] = std::exp(xr[j] - m);
      s += yr[j];
    }
    const float inv = static_cast<float>(1.0 / s);
    for (int64_t j = 0; j < c; ++j) yr[j] *= inv;
  });
  return Var::from_op(std::move(out), {x}, [x, rows, c](const Tensor& y, const Tensor& gy) {
    float* gx = x.grad_mut().data();
    detail::for_each_row(rows, c, [&](int64_t off) {
      const float* yr = y.data() + off;
      const float* gr = gy.data() + off;
      double dot = 0.0;
      for (int64_t j = 0; j < c; ++j) dot += static_cast<double>(gr[j]) * yr[j];
      const float d = static_cast<float>(dot);
      for (int64_t j = 0; j < c; ++j) gx[off + j] += yr[j] * (gr[j] - d);
    });
  });
}

Var log_softmax(const Var& x) {
  const Tensor& xv = x.value();
  const int64_t c = last_axis(xv, "log_softmax");
  const int64_t rows = xv.numel() / c;
  Tensor out(xv.shape());  // [..., C]
  detail::for_each_row(rows, c, [&](int64_t off) {
    const float* xr = xv.data() + off;
    const float shift = static_cast<float>(detail::log_sum_exp(xr, c));
    for (int64_t j = 0; j < c; ++j) out[off + j] = xr[j] - shift;
  });
  return Var::from_op(std::move(out), {x}, [x, rows, c](const Tensor& y, const Tensor& gy) {
    float* gx = x.grad_mut().data();
    detail::for_each_row(rows, c, [&](int64_t off) {
      const float* yr = y.data() + off;
      const float* gr = gy.data() + off;
      double s = 0.0;
      for (int64_t j = 0; j < c; ++j) s += gr[j];
      const float total = static_cast<float>(s);
      for (int64_t j = 0; j < c; ++j) gx[off + j] += gr[j] - std::exp(yr[j]) * total;
    });
  });
}

}  // namespace attend::ops
