#include "attend/bio/evoformer/gated_output_projection.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <vector>

#include "attend/bio/evoformer/channel_first_statistics.hpp"
#include "attend/core/error.hpp"
#include "attend/core/fast_sigmoid.hpp"
#include "attend/core/gemm.hpp"
#include "attend/core/parallel.hpp"

namespace attend::bio {

namespace {

constexpr int64_t kBlock = 512;  // positions per work item and per parameter-gradient partial (fixed: deterministic)
constexpr int64_t kLanes = 16;   // partial sums of dgamma and dbeta per channel (one vector register of floats)

// One block of positions lo .. lo + n and everything its output and backward are made of.
struct BlockScratch {
  std::vector<float> mean, rstd;  // [n] each: x's statistics over C
  std::vector<float> xn;          // [C, n]: the normalised x, channel-first
  std::vector<float> g, p;        // [n, D] each: the gate and the projection
};

// The block's statistics, xn, g = sigmoid(zn wg + bg) and p = xn wp + bp. x [C, rows].
void forward_block(const float* zn, const float* wg, const float* bg, int64_t kg, const float* x, const float* gamma,
                   const float* beta, float eps, const float* wp, const float* bp, int64_t c, int64_t d, int64_t rows,
                   int64_t lo, int64_t n, BlockScratch& s) {
  s.mean.resize(n);
  s.rstd.resize(n);
  s.xn.resize(c * n);
  s.g.resize(n * d);
  s.p.resize(n * d);
  channel_first_statistics(x, rows, c, lo, n, eps, s.mean.data(), s.rstd.data());
  const float* mu = s.mean.data();
  const float* rs = s.rstd.data();
  for (int64_t ch = 0; ch < c; ++ch) {
    const float* __restrict xc = x + ch * rows + lo;
    float* __restrict xnc = s.xn.data() + ch * n;
    for (int64_t t = 0; t < n; ++t) xnc[t] = (xc[t] - mu[t]) * rs[t] * gamma[ch] + beta[ch];
  }
  gemm_one_block(false, false, n, d, kg, 1.0f, zn + lo * kg, kg, wg, d, 0.0f, s.g.data(), d);      // zn wg
  gemm_one_block(true, false, n, d, c, 1.0f, s.xn.data(), n, wp, d, 0.0f, s.p.data(), d);          // xn wp
  for (int64_t r = 0; r < n; ++r) {
    float* __restrict gr = s.g.data() + r * d;
    float* __restrict pr = s.p.data() + r * d;
    for (int64_t t = 0; t < d; ++t) {
      gr[t] = sigmoid_approx(gr[t] + bg[t]);
      pr[t] += bp[t];
    }
  }
}

}  // namespace

Var gated_output_projection(const Var& zn, const Var& wg, const Var& bg, const Var& x, const Var& gamma,
                            const Var& beta, float eps, const Var& wp, const Var& bp) {
  const Tensor& zv = zn.value();
  const Tensor& xv = x.value();
  const Tensor& wgv = wg.value();
  const Tensor& wpv = wp.value();
  ATTEND_CHECK(zv.rank() == 3 && xv.rank() == 3 && wgv.rank() == 2 && wpv.rank() == 2 && xv.dim(0) > 0 &&
                   xv.dim(1) == zv.dim(0) && xv.dim(2) == zv.dim(1) && wgv.dim(0) == zv.dim(2) &&
                   wpv.dim(0) == xv.dim(0) && wgv.dim(1) == wpv.dim(1) && bg.shape() == Shape{wgv.dim(1)} &&
                   bp.shape() == Shape{wpv.dim(1)} && gamma.shape() == Shape{xv.dim(0)} &&
                   beta.shape() == gamma.shape(),
               "gated_output_projection expects zn [n_0, n_1, Kg], wg [Kg, D], bg [D], x [C, n_0, n_1], gamma and "
               "beta [C], wp [C, D] and bp [D], got "
                   << shape_to_string(zv.shape()) << ", " << shape_to_string(wgv.shape()) << ", "
                   << shape_to_string(bg.shape()) << ", " << shape_to_string(xv.shape()) << ", "
                   << shape_to_string(gamma.shape()) << ", " << shape_to_string(beta.shape()) << ", "
                   << shape_to_string(wpv.shape()) << ", " << shape_to_string(bp.shape()));
  const int64_t kg = zv.dim(2), c = xv.dim(0), d = wgv.dim(1), rows = zv.dim(0) * zv.dim(1);
  Tensor out = Tensor::uninitialized({zv.dim(0), zv.dim(1), d});  // [n_0, n_1, D], every element written
  parallel_for_blocks(rows, kBlock, [&](int64_t lo, int64_t hi) {
    BlockScratch s;
    forward_block(zv.data(), wgv.data(), bg.value().data(), kg, xv.data(), gamma.value().data(), beta.value().data(),
                  eps, wpv.data(), bp.value().data(), c, d, rows, lo, hi - lo, s);
    float* __restrict y = out.data() + lo * d;
    for (int64_t e = 0; e < (hi - lo) * d; ++e) y[e] = s.g[e] * s.p[e];
  });
  return Var::from_op(std::move(out), {zn, wg, bg, x, gamma, beta, wp, bp},
                      [zn, wg, bg, x, gamma, beta, eps, wp, bp, rows, kg, c, d](const Tensor&, const Tensor& gy) {
    const float* zp = zn.value().data();
    const float* xp = x.value().data();
    const float* wgp = wg.value().data();
    const float* wpp = wp.value().data();
    const float* gammap = gamma.value().data();
    const bool params = wg.requires_grad() || bg.requires_grad() || wp.requires_grad() || bp.requires_grad() ||
                        gamma.requires_grad() || beta.requires_grad();
    // per block: dwg [Kg, D], dbg [D], dwp [C, D], dbp [D], dgamma [C], dbeta [C]
    const int64_t n_blocks = (rows + kBlock - 1) / kBlock;
    const int64_t dwg_size = kg * d, dwp_size = c * d, part_size = dwg_size + d + dwp_size + d + 2 * c;
    std::vector<float> partial(params ? static_cast<std::size_t>(n_blocks * part_size) : 0);
    float* dz = zn.requires_grad() ? zn.grad_mut().data() : nullptr;
    float* dx = x.requires_grad() ? x.grad_mut().data() : nullptr;
    parallel_for_blocks(rows, kBlock, [&](int64_t lo, int64_t hi) {
      const int64_t n = hi - lo;
      const float* __restrict dy = gy.data() + lo * d;  // [n, D]
      BlockScratch s;
      forward_block(zp, wgp, bg.value().data(), kg, xp, gammap, beta.value().data(), eps, wpp, bp.value().data(), c,
                    d, rows, lo, n, s);
      // in place: p <- dl = dy p g (1 - g) (the gate's pre-activation), g <- dp = dy g
      for (int64_t e = 0; e < n * d; ++e) {
        const float ge = s.g[e];
        s.p[e] = dy[e] * s.p[e] * (ge * (1.0f - ge));
        s.g[e] = dy[e] * ge;
      }
      const float* dl = s.p.data();  // [n, D]
      const float* dp = s.g.data();  // [n, D]
      if (dz) gemm_one_block(false, true, n, kg, d, 1.0f, dl, d, wgp, d, 1.0f, dz + lo * kg, kg);
      std::vector<float> dxn(static_cast<std::size_t>(c * n));  // [C, n] = wp dp^T
      gemm_one_block(false, true, c, n, d, 1.0f, wpp, d, dp, d, 0.0f, dxn.data(), n);
      float* part = params ? partial.data() + (lo / kBlock) * part_size : nullptr;
      float* dgamma = part ? part + dwg_size + d + dwp_size + d : nullptr;
      float* dbeta = part ? dgamma + c : nullptr;
      // the layer norm's backward: dx = rstd (gh - mean(gh) - xhat mean(gh xhat)), gh = dxn gamma
      std::vector<float> s_gh(static_cast<std::size_t>(n), 0.0f), s_ghx(static_cast<std::size_t>(n), 0.0f);
      const float* __restrict mu = s.mean.data();
      const float* __restrict rs = s.rstd.data();
      for (int64_t ch = 0; ch < c; ++ch) {
        const float* __restrict gc = dxn.data() + ch * n;
        const float* __restrict xc = xp + ch * rows + lo;
        float* __restrict sg = s_gh.data();
        float* __restrict sgx = s_ghx.data();
        float lane_dgamma[kLanes] = {}, lane_dbeta[kLanes] = {};  // position t in lane t mod kLanes
        for (int64_t t = 0; t < n; ++t) {
          const float xhat = (xc[t] - mu[t]) * rs[t];
          sg[t] += gc[t] * gammap[ch];
          sgx[t] += gc[t] * gammap[ch] * xhat;
          lane_dgamma[t % kLanes] += gc[t] * xhat;
          lane_dbeta[t % kLanes] += gc[t];
        }
        if (!part) continue;
        dgamma[ch] = 0.0f;
        dbeta[ch] = 0.0f;
        for (int64_t l = 0; l < kLanes; ++l) {
          dgamma[ch] += lane_dgamma[l];
          dbeta[ch] += lane_dbeta[l];
        }
      }
      if (dx)
        add_channel_first_layer_norm_dx(xp, dxn.data(), n, gammap, mu, rs, s_gh.data(), s_ghx.data(), rows, c, lo, n,
                                        dx);
      if (!part) return;
      float* dwg = part;
      float* dbg = dwg + dwg_size;
      float* dwp = dbg + d;
      float* dbp = dwp + dwp_size;
      gemm_one_block(true, false, kg, d, n, 1.0f, zp + lo * kg, kg, dl, d, 0.0f, dwg, d);  // zn^T dl
      gemm_one_block(false, false, c, d, n, 1.0f, s.xn.data(), n, dp, d, 0.0f, dwp, d);   // xn^T dp
      std::fill_n(dbg, d, 0.0f);
      std::fill_n(dbp, d, 0.0f);
      for (int64_t r = 0; r < n; ++r) {
        const float* __restrict dlr = dl + r * d;
        const float* __restrict dpr = dp + r * d;
        for (int64_t t = 0; t < d; ++t) {
          dbg[t] += dlr[t];
          dbp[t] += dpr[t];
        }
      }
    });
    if (!params) return;
    std::vector<float> sum(static_cast<std::size_t>(part_size), 0.0f);  // dwg, dbg, dwp, dbp, dgamma, dbeta
    parallel_for_blocks(part_size, 1 << 12, [&](int64_t lo, int64_t hi) {
      for (int64_t blk = 0; blk < n_blocks; ++blk)
        for (int64_t e = lo; e < hi; ++e) sum[e] += partial[blk * part_size + e];
    });
    const float* sp = sum.data();
    const int64_t dgamma_at = dwg_size + d + dwp_size + d;
    for (const auto& [var, offset, size] :
         {std::tuple{&wg, int64_t{0}, dwg_size}, std::tuple{&bg, dwg_size, d}, std::tuple{&wp, dwg_size + d, dwp_size},
          std::tuple{&bp, dwg_size + d + dwp_size, d}, std::tuple{&gamma, dgamma_at, c},
          std::tuple{&beta, dgamma_at + c, c}}) {
      if (!var->requires_grad()) continue;
      float* g = var->grad_mut().data();
      for (int64_t e = 0; e < size; ++e) g[e] += sp[offset + e];
    }
  });
}

}  // namespace attend::bio
