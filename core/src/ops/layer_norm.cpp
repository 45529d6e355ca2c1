#include "attend/core/ops/layer_norm.hpp"

#include <cmath>

#include "attend/core/error.hpp"
#include "support.hpp"

namespace attend::ops {

Var layer_norm(const Var& x, const Var& gamma, const Var& beta, float eps) {
  const Tensor& xv = x.value();
  ATTEND_CHECK(xv.rank() >= 1 && xv.dim(-1) > 0,
               "layer_norm needs a non-empty last axis, got " << shape_to_string(xv.shape()));
  const int64_t c = xv.dim(-1);
  const int64_t rows = xv.numel() / c;
  for (const Var* p : {&gamma, &beta}) {
    ATTEND_CHECK(!p->defined() || p->shape() == Shape{c},
                 "layer_norm of " << shape_to_string(xv.shape())
                                  << " with an affine parameter of shape "
                                  << shape_to_string(p->shape()) << ", expected [" << c << "]");
  }
  const float* gp = gamma.defined() ? gamma.value().data() : nullptr;
  const float* bp = beta.defined() ? beta.value().data() : nullptr;
  Tensor out(xv.shape());  // [..., C]
  Tensor mean({rows});     // [rows]
  Tensor rstd({rows});     // [rows], 1 / sqrt(var + eps)
  detail::for_each_row(rows, c, [&](int64_t off) {
    const float* xr = xv.data() + off;
    double s = 0.0;
    for (int64_t j = 0; j < c; ++j) s += xr[j];
    const double mu = s / static_cast<double>(c);
    double ss = 0.0;
    for (int64_t j = 0; j < c; ++j) ss += (xr[j] - mu) * (xr[j] - mu);
    const double inv = 1.0 / std::sqrt(ss / static_cast<double>(c) + eps);
    const int64_t r = off / c;
    mean[r] = static_cast<float>(mu);
    rstd[r] = static_cast<float>(inv);
    float* yr = out.data() + off;
    for (int64_t j = 0; j < c; ++j) {
      float v = (xr[j] - mean[r]) * rstd[r];
      if (gp) v *= gp[j];
      if (bp) v += bp[j];
      yr[j] = v;
    }
  });
  return Var::from_op(
      std::move(out), {x, gamma, beta},
      [x, gamma, beta, mean, rstd, rows, c](const Tensor&, const Tensor& gy) {
        const float* xp = x.value().data();
        const float* g = gy.data();
        auto xhat = [&](int64_t r, int64_t i) { return (xp[i] - mean[r]) * rstd[r]; };
        if (x.requires_grad()) {
          // dx = rstd * (gh - mean(gh) - xhat * mean(gh * xhat)), gh = dy * gamma.
          const float* gp = gamma.defined() ? gamma.value().data() : nullptr;
          float* gx = x.grad_mut().data();
          detail::for_each_row(rows, c, [&](int64_t off) {
            const int64_t r = off / c;
            double s_gh = 0.0, s_ghx = 0.0;
            for (int64_t j = 0; j < c; ++j) {
              const float gh = gp ? g[off + j] * gp[j] : g[off + j];
              s_gh += gh;
              s_ghx += static_cast<double>(gh) * xhat(r, off + j);
            }
            const float m_gh = static_cast<float>(s_gh / static_cast<double>(c));
            const float m_ghx = static_cast<float>(s_ghx / static_cast<double>(c));
            for (int64_t j = 0; j < c; ++j) {
              const float gh = gp ? g[off + j] * gp[j] : g[off + j];
              gx[off + j] += rstd[r] * (gh - m_gh - xhat(r, off + j) * m_ghx);
            }
          });
        }
        if (gamma.requires_grad()) {  // dgamma = sum over rows of dy * xhat
          Tensor xh({rows, c});       // [rows, C]
          detail::for_each_row(rows, c, [&](int64_t off) {
            for (int64_t j = 0; j < c; ++j) xh[off + j] = xhat(off / c, off + j);
          });
          detail::sum_rows_into(g, xh.data(), rows, c, 1.0f, gamma.grad_mut().data());
        }
        if (beta.requires_grad())
          detail::sum_rows_into(g, nullptr, rows, c, 1.0f, beta.grad_mut().data());
      });
}

}  // namespace attend::ops
