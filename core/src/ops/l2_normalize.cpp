#include "attend/core/ops/l2_normalize.hpp"

#include <cmath>

#include "attend/core/error.hpp"
#include "support.hpp"

namespace attend::ops {

Var l2_normalize(const Var& x, float eps) {
  const Tensor& xv = x.value();
  ATTEND_CHECK(xv.rank() >= 1 && xv.dim(-1) > 0,
               "l2_normalize needs a non-empty last axis, got " << shape_to_string(xv.shape()));
  ATTEND_CHECK(eps > 0.0f, "l2_normalize: eps must be positive, got " << eps);
  const int64_t c = xv.dim(-1);
  const int64_t rows = xv.numel() / c;
  Tensor out(xv.shape());  // [..., C]
  Tensor scale({rows});    // [rows], 1 / max(||x_r||, eps)
  Tensor clamped({rows});  // [rows], 1 where the norm was below eps
  detail::for_each_row(rows, c, [&](int64_t off) {
    const float* xr = xv.data() + off;
    double ss = 0.0;
    for (int64_t j = 0; j < c; ++j) ss += static_cast<double>(xr[j]) * xr[j];
    const double norm = std::sqrt(ss);
    const int64_t r = off / c;
    clamped[r] = norm > eps ? 0.0f : 1.0f;
    scale[r] = static_cast<float>(1.0 / std::max(norm, static_cast<double>(eps)));
    float* yr = out.data() + off;
    for (int64_t j = 0; j < c; ++j) yr[j] = xr[j] * scale[r];
  });
  return Var::from_op(std::move(out), {x}, [x, scale, clamped, rows, c](const Tensor& y, const Tensor& gy) {
    if (!x.requires_grad()) return;
    float* gx = x.grad_mut().data();
    detail::for_each_row(rows, c, [&](int64_t off) {
      const int64_t r = off / c;
      const float* g = gy.data() + off;
      const float* yr = y.data() + off;
      double dot = 0.0;  // y . dy
      if (clamped[r] == 0.0f) {
        for (int64_t j = 0; j < c; ++j) dot += static_cast<double>(yr[j]) * g[j];
      }
      const auto d = static_cast<float>(dot);
      for (int64_t j = 0; j < c; ++j) gx[off + j] += scale[r] * (g[j] - yr[j] * d);
    });
  });
}

}  // namespace attend::ops
