#include "attend/core/ops/layer_norm.hpp"

#include <cmath>
#include <vector>

#include "attend/core/error.hpp"
#include "attend/core/parallel.hpp"

namespace attend::ops {

namespace {

constexpr int64_t kLanes = 16;  // partial sums per row statistic (one vector register of floats)
constexpr int64_t kRowBlock = 256;  // rows per work item and per dgamma / dbeta partial (fixed: deterministic)

// sum_j f(j) over j in [0, n) in kLanes interleaved partial sums, then the lanes in order: the
// same order for every row, and one vector add per kLanes terms.
template <class Term>
float lane_sum(int64_t n, Term&& term) {
  float lanes[kLanes] = {};
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes)
    for (int64_t l = 0; l < kLanes; ++l) lanes[l] += term(j + l);
  for (; j < n; ++j) lanes[j % kLanes] += term(j);
  float sum = 0.0f;
  for (float lane : lanes) sum += lane;
  return sum;
}

}  // namespace

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
  Tensor out = Tensor::uninitialized(xv.shape());  // [..., C], every element written
  Tensor mean = Tensor::uninitialized({rows});     // [rows]
  Tensor rstd = Tensor::uninitialized({rows});     // [rows], 1 / sqrt(var + eps)
  const float inv_c = 1.0f / static_cast<float>(c);
  parallel_for_blocks(rows, kRowBlock, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const float* __restrict xr = xv.data() + r * c;
      float* __restrict yr = out.data() + r * c;
      const float mu = lane_sum(c, [&](int64_t j) { return xr[j]; }) * inv_c;
      const float var = lane_sum(c, [&](int64_t j) { return (xr[j] - mu) * (xr[j] - mu); }) * inv_c;
      const float rs = 1.0f / std::sqrt(var + eps);
      mean[r] = mu;
      rstd[r] = rs;
      if (gp && bp) {
        for (int64_t j = 0; j < c; ++j) yr[j] = (xr[j] - mu) * rs * gp[j] + bp[j];
      } else {
        for (int64_t j = 0; j < c; ++j) {
          float v = (xr[j] - mu) * rs;
          if (gp) v *= gp[j];
          if (bp) v += bp[j];
          yr[j] = v;
        }
      }
    }
  });
  return Var::from_op(
      std::move(out), {x, gamma, beta},
      [x, gamma, beta, mean, rstd, rows, c](const Tensor&, const Tensor& gy) {
        const bool need_x = x.requires_grad();
        const bool need_gamma = gamma.defined() && gamma.requires_grad();
        const bool need_beta = beta.defined() && beta.requires_grad();
        const float* xp = x.value().data();
        const float* g = gy.data();
        const float* gp = gamma.defined() ? gamma.value().data() : nullptr;
        float* gx = need_x ? x.grad_mut().data() : nullptr;
        const float inv_c = 1.0f / static_cast<float>(c);
        // Per block of rows: dgamma [C] = sum dy xhat and dbeta [C] = sum dy, summed over the
        // blocks in block order afterwards.
        const int64_t n_blocks = (rows + kRowBlock - 1) / kRowBlock;
        const bool affine_grads = need_gamma || need_beta;
        std::vector<float> partial(affine_grads ? static_cast<std::size_t>(n_blocks * 2 * c) : 0, 0.0f);
        parallel_for_blocks(rows, kRowBlock, [&](int64_t lo, int64_t hi) {
          float* __restrict dgamma = affine_grads ? partial.data() + (lo / kRowBlock) * 2 * c : nullptr;
          float* __restrict dbeta = affine_grads ? dgamma + c : nullptr;
          std::vector<float> xhat(static_cast<std::size_t>(c)), gh(static_cast<std::size_t>(c));  // [C] each
          for (int64_t r = lo; r < hi; ++r) {
            const float* __restrict xr = xp + r * c;
            const float* __restrict gr = g + r * c;
            const float mu = mean[r], rs = rstd[r];
            float* __restrict xh = xhat.data();
            float* __restrict ghr = gh.data();
            for (int64_t j = 0; j < c; ++j) {
              xh[j] = (xr[j] - mu) * rs;
              ghr[j] = gp ? gr[j] * gp[j] : gr[j];
            }
            if (affine_grads)
              for (int64_t j = 0; j < c; ++j) {
                dgamma[j] += gr[j] * xh[j];
                dbeta[j] += gr[j];
              }
            if (!gx) continue;
            // dx = rstd * (gh - mean(gh) - xhat * mean(gh * xhat)), gh = dy * gamma
            const float m_gh = lane_sum(c, [&](int64_t j) { return ghr[j]; }) * inv_c;
            const float m_ghx = lane_sum(c, [&](int64_t j) { return ghr[j] * xh[j]; }) * inv_c;
            float* __restrict dxr = gx + r * c;
            for (int64_t j = 0; j < c; ++j) dxr[j] += rs * (ghr[j] - m_gh - xh[j] * m_ghx);
          }
        });
        if (!affine_grads) return;
        std::vector<double> sum(static_cast<std::size_t>(2 * c), 0.0);  // dgamma [C], dbeta [C]
        for (int64_t blk = 0; blk < n_blocks; ++blk)
          for (int64_t e = 0; e < 2 * c; ++e) sum[e] += partial[blk * 2 * c + e];
        if (need_gamma) {
          float* d = gamma.grad_mut().data();
          for (int64_t j = 0; j < c; ++j) d[j] += static_cast<float>(sum[j]);
        }
        if (need_beta) {
          float* d = beta.grad_mut().data();
          for (int64_t j = 0; j < c; ++j) d[j] += static_cast<float>(sum[c + j]);
        }
      });
}

}  // namespace attend::ops
