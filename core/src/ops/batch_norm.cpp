#include "attend/core/ops/batch_norm.hpp"

#include <cmath>
#include <utility>

#include "attend/core/error.hpp"
#include "support.hpp"

namespace attend::ops {

Var batch_norm(const Var& x, const Var& gamma, const Var& beta, float eps, BatchStatistics* statistics) {
  // Ioffe & Szegedy 2015, Algorithm 1 (forward) and Section 3 (the chain rule through it).
  const Tensor& xv = x.value();
  ATTEND_CHECK(xv.rank() == 2 && xv.dim(0) > 0 && xv.dim(1) > 0,
               "batch_norm needs a non-empty [N, C] input, got " << shape_to_string(xv.shape()));
  const int64_t n = xv.dim(0), c = xv.dim(1);
  for (const Var* p : {&gamma, &beta}) {
    ATTEND_CHECK(p->defined() && p->shape() == Shape{c}, "batch_norm of " << shape_to_string(xv.shape())
                                                                           << " with an affine parameter of shape "
                                                                           << (p->defined() ? shape_to_string(p->shape()) : "none")
                                                                           << ", expected [" << c << "]");
  }
  const float inv_n = 1.0f / static_cast<float>(n);
  Tensor mean = Tensor({c});  // [C]
  detail::sum_rows_into(xv.data(), nullptr, n, c, inv_n, mean.data());
  Tensor centered(xv.shape());  // [N, C], x - mean
  detail::for_each_row(n, c, [&](int64_t off) {
    for (int64_t j = 0; j < c; ++j) centered[off + j] = xv[off + j] - mean[j];
  });
  Tensor variance = Tensor({c});  // [C], biased
  detail::sum_rows_into(centered.data(), centered.data(), n, c, inv_n, variance.data());
  Tensor rstd({c});  // [C], 1 / sqrt(var + eps)
  for (int64_t j = 0; j < c; ++j) rstd[j] = static_cast<float>(1.0 / std::sqrt(static_cast<double>(variance[j]) + eps));
  Tensor xhat(xv.shape());  // [N, C], the normalised input
  Tensor out(xv.shape());   // [N, C]
  const float* gp = gamma.value().data();
  const float* bp = beta.value().data();
  detail::for_each_row(n, c, [&](int64_t off) {
    for (int64_t j = 0; j < c; ++j) {
      xhat[off + j] = centered[off + j] * rstd[j];
      out[off + j] = xhat[off + j] * gp[j] + bp[j];
    }
  });
  if (statistics != nullptr) *statistics = {mean, variance};
  return Var::from_op(
      std::move(out), {x, gamma, beta}, [x, gamma, beta, xhat = std::move(xhat), rstd, n, c](const Tensor&, const Tensor& gy) {
        const float* g = gy.data();
        const float inv_n = 1.0f / static_cast<float>(n);
        Tensor sum_g = Tensor({c});       // [C], sum over rows of dy
        Tensor sum_g_xhat = Tensor({c});  // [C], sum over rows of dy * xhat
        detail::sum_rows_into(g, nullptr, n, c, 1.0f, sum_g.data());
        detail::sum_rows_into(g, xhat.data(), n, c, 1.0f, sum_g_xhat.data());
        if (x.requires_grad()) {
          // dx = gamma * rstd * (dy - mean(dy) - xhat * mean(dy * xhat)), means over rows.
          const float* gp = gamma.value().data();
          float* gx = x.grad_mut().data();
          detail::for_each_row(n, c, [&](int64_t off) {
            for (int64_t j = 0; j < c; ++j) {
              gx[off + j] += gp[j] * rstd[j] * (g[off + j] - sum_g[j] * inv_n - xhat[off + j] * sum_g_xhat[j] * inv_n);
            }
          });
        }
        if (gamma.requires_grad()) {
          float* gg = gamma.grad_mut().data();
          for (int64_t j = 0; j < c; ++j) gg[j] += sum_g_xhat[j];
        }
        if (beta.requires_grad()) {
          float* gb = beta.grad_mut().data();
          for (int64_t j = 0; j < c; ++j) gb[j] += sum_g[j];
        }
      });
}

}  // namespace attend::ops
