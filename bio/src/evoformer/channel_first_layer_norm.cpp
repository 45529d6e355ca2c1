#include "attend/bio/evoformer/channel_first_layer_norm.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "attend/bio/evoformer/channel_first_statistics.hpp"
#include "attend/core/error.hpp"
#include "attend/core/parallel.hpp"

namespace attend::bio {

namespace {

constexpr int64_t kBlock = 1024;  // positions per work item and per gamma / beta partial (fixed: deterministic)
constexpr int64_t kTile = 64;     // positions whose statistics are computed together (vector lanes)

}  // namespace

Var channel_first_layer_norm(const Var& x, const Var& gamma, const Var& beta, float eps) {
  const Tensor& xv = x.value();
  ATTEND_CHECK(xv.rank() == 3 && xv.dim(0) > 0 && gamma.shape() == Shape{xv.dim(0)} && beta.shape() == gamma.shape(),
               "channel_first_layer_norm expects x [C, n_0, n_1] with C > 0 and gamma, beta [C], got "
                   << shape_to_string(xv.shape()) << ", " << shape_to_string(gamma.shape()) << ", "
                   << shape_to_string(beta.shape()));
  const int64_t c = xv.dim(0), n0 = xv.dim(1), n1 = xv.dim(2), rows = n0 * n1;
  Tensor out = Tensor::uninitialized({n0, n1, c});  // [n_0, n_1, C], every element written
  Tensor mean = Tensor::uninitialized({rows});      // [n_0 n_1]
  Tensor rstd = Tensor::uninitialized({rows});      // [n_0 n_1], 1 / sqrt(var + eps)
  const float* gp = gamma.value().data();
  const float* bp = beta.value().data();
  parallel_for_blocks(rows, kBlock, [&](int64_t lo, int64_t hi) {
    for (int64_t t0 = lo; t0 < hi; t0 += kTile) {
      const int64_t n = std::min(kTile, hi - t0);
      float* mu = mean.data() + t0;
      float* rs = rstd.data() + t0;
      channel_first_statistics(xv.data(), rows, c, t0, n, eps, mu, rs);
      float* y = out.data() + t0 * c;  // [n, C]
      for (int64_t ch = 0; ch < c; ++ch) {
        const float* xc = xv.data() + ch * rows + t0;
        for (int64_t t = 0; t < n; ++t) y[t * c + ch] = (xc[t] - mu[t]) * rs[t] * gp[ch] + bp[ch];
      }
    }
  });
  return Var::from_op(std::move(out), {x, gamma, beta},
                      [x, gamma, beta, mean, rstd, c, rows](const Tensor&, const Tensor& gy) {
    const bool need_x = x.requires_grad(), need_gamma = gamma.requires_grad(), need_beta = beta.requires_grad();
    const float* xp = x.value().data();
    const float* gp = gamma.value().data();
    float* dx = need_x ? x.grad_mut().data() : nullptr;
    const int64_t n_blocks = (rows + kBlock - 1) / kBlock;
    std::vector<float> partial(static_cast<std::size_t>(n_blocks * 2 * c), 0.0f);  // per block: dgamma [C], dbeta [C]
    parallel_for_blocks(rows, kBlock, [&](int64_t lo, int64_t hi) {
      std::vector<float> g(static_cast<std::size_t>(c * kTile));  // the tile's dy, channel-first [C, n]
      // dgamma and dbeta per channel and tile lane [C, kTile], summed over lanes at the end
      std::vector<float> lane_dgamma(static_cast<std::size_t>(c * kTile), 0.0f);
      std::vector<float> lane_dbeta(static_cast<std::size_t>(c * kTile), 0.0f);
      float s_gh[kTile], s_ghx[kTile];
      for (int64_t t0 = lo; t0 < hi; t0 += kTile) {
        const int64_t n = std::min(kTile, hi - t0);
        const float* mu = mean.data() + t0;
        const float* rs = rstd.data() + t0;
        const float* gyt = gy.data() + t0 * c;  // [n, C]
        for (int64_t t = 0; t < n; ++t)
          for (int64_t ch = 0; ch < c; ++ch) g[ch * kTile + t] = gyt[t * c + ch];
        // dx = rstd (gh - mean(gh) - xhat mean(gh xhat)), gh = dy gamma
        std::fill_n(s_gh, n, 0.0f);
        std::fill_n(s_ghx, n, 0.0f);
        for (int64_t ch = 0; ch < c; ++ch) {
          const float* __restrict gc = g.data() + ch * kTile;
          const float* __restrict xc = xp + ch * rows + t0;
          float* __restrict dgc = lane_dgamma.data() + ch * kTile;
          float* __restrict dbc = lane_dbeta.data() + ch * kTile;
          for (int64_t t = 0; t < n; ++t) {
            const float xhat = (xc[t] - mu[t]) * rs[t];
            s_gh[t] += gc[t] * gp[ch];
            s_ghx[t] += gc[t] * gp[ch] * xhat;
            dgc[t] += gc[t] * xhat;
            dbc[t] += gc[t];
          }
        }
        if (dx) add_channel_first_layer_norm_dx(xp, g.data(), kTile, gp, mu, rs, s_gh, s_ghx, rows, c, t0, n, dx);
      }
      float* dgamma = partial.data() + (lo / kBlock) * 2 * c;
      float* dbeta = dgamma + c;
      for (int64_t ch = 0; ch < c; ++ch)
        for (int64_t t = 0; t < kTile; ++t) {
          dgamma[ch] += lane_dgamma[ch * kTile + t];
          dbeta[ch] += lane_dbeta[ch * kTile + t];
        }
    });
    if (!need_gamma && !need_beta) return;
    std::vector<float> sum(static_cast<std::size_t>(2 * c), 0.0f);
    for (int64_t blk = 0; blk < n_blocks; ++blk)
      for (int64_t e = 0; e < 2 * c; ++e) sum[e] += partial[blk * 2 * c + e];
    if (need_gamma) {
      float* d = gamma.grad_mut().data();
      for (int64_t ch = 0; ch < c; ++ch) d[ch] += sum[ch];
    }
    if (need_beta) {
      float* d = beta.grad_mut().data();
      for (int64_t ch = 0; ch < c; ++ch) d[ch] += sum[c + ch];
    }
  });
}

}  // namespace attend::bio
