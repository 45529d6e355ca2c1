#include "attend/bio/evoformer/gated_output_projection.hpp"

#include <algorithm>
#include <tuple>
#include <vector>

#include "attend/core/error.hpp"
#include "attend/core/fast_sigmoid.hpp"
#include "attend/core/gemm.hpp"
#include "attend/core/parallel.hpp"

namespace attend::bio {

namespace {

constexpr int64_t kRowBlock = 512;  // rows per work item and per weight-gradient partial (fixed: deterministic)

// Rows lo .. lo + rows: g [rows, C] = sigmoid(zn wg + bg) and p [rows, C] = xn wp + bp.
void gate_and_projection(const float* zn, const float* wg, const float* bg, int64_t kg, const float* xn,
                         const float* wp, const float* bp, int64_t kp, int64_t lo, int64_t rows, int64_t c,
                         float* g, float* p) {
  gemm_one_block(false, false, rows, c, kg, 1.0f, zn + lo * kg, kg, wg, c, 0.0f, g, c);
  gemm_one_block(false, false, rows, c, kp, 1.0f, xn + lo * kp, kp, wp, c, 0.0f, p, c);
  for (int64_t r = 0; r < rows; ++r) {
    float* __restrict gr = g + r * c;
    float* __restrict pr = p + r * c;
    for (int64_t t = 0; t < c; ++t) {
      gr[t] = sigmoid_approx(gr[t] + bg[t]);
      pr[t] += bp[t];
    }
  }
}

}  // namespace

Var gated_output_projection(const Var& zn, const Var& wg, const Var& bg, const Var& xn, const Var& wp,
                            const Var& bp) {
  const Tensor& zv = zn.value();
  const Tensor& xv = xn.value();
  const Tensor& wgv = wg.value();
  const Tensor& wpv = wp.value();
  ATTEND_CHECK(zv.rank() >= 1 && xv.rank() >= 1 && wgv.rank() == 2 && wpv.rank() == 2 &&
                   wgv.dim(0) == zv.dim(-1) && wpv.dim(0) == xv.dim(-1) && wgv.dim(1) == wpv.dim(1) &&
                   bg.value().shape() == Shape{wgv.dim(1)} && bp.value().shape() == Shape{wpv.dim(1)} &&
                   zv.dim(-1) > 0 && xv.dim(-1) > 0 && zv.numel() / zv.dim(-1) == xv.numel() / xv.dim(-1),
               "gated_output_projection expects zn [..., Kg], wg [Kg, C], bg [C], xn [..., Kp] with as many rows, "
               "wp [Kp, C] and bp [C], got "
                   << shape_to_string(zv.shape()) << ", " << shape_to_string(wgv.shape()) << ", "
                   << shape_to_string(bg.shape()) << ", " << shape_to_string(xv.shape()) << ", "
                   << shape_to_string(wpv.shape()) << ", " << shape_to_string(bp.shape()));
  const int64_t kg = zv.dim(-1), kp = xv.dim(-1), c = wgv.dim(1), rows = zv.numel() / kg;
  Shape out_shape = zv.shape();
  out_shape.back() = c;
  Tensor out = Tensor::uninitialized(out_shape);  // [..., C], every element written
  parallel_for_blocks(rows, kRowBlock, [&](int64_t lo, int64_t hi) {
    const int64_t nb = hi - lo;
    std::vector<float> g(static_cast<std::size_t>(nb * c)), p(static_cast<std::size_t>(nb * c));  // [nb, C] each
    gate_and_projection(zv.data(), wgv.data(), bg.value().data(), kg, xv.data(), wpv.data(), bp.value().data(), kp,
                        lo, nb, c, g.data(), p.data());
    float* __restrict y = out.data() + lo * c;
    for (int64_t e = 0; e < nb * c; ++e) y[e] = g[e] * p[e];
  });
  return Var::from_op(std::move(out), {zn, wg, bg, xn, wp, bp},
                      [zn, wg, bg, xn, wp, bp, rows, kg, kp, c](const Tensor&, const Tensor& gy) {
    const float* zp = zn.value().data();
    const float* xp = xn.value().data();
    const float* wgp = wg.value().data();
    const float* wpp = wp.value().data();
    const bool weights = wg.requires_grad() || bg.requires_grad() || wp.requires_grad() || bp.requires_grad();
    // per block: dwg [Kg, C], dbg [C], dwp [Kp, C], dbp [C]
    const int64_t n_blocks = (rows + kRowBlock - 1) / kRowBlock;
    const int64_t dwg_size = kg * c, dwp_size = kp * c, part_size = dwg_size + c + dwp_size + c;
    std::vector<float> partial(weights ? static_cast<std::size_t>(n_blocks * part_size) : 0);
    float* dz = zn.requires_grad() ? zn.grad_mut().data() : nullptr;
    float* dx = xn.requires_grad() ? xn.grad_mut().data() : nullptr;
    parallel_for_blocks(rows, kRowBlock, [&](int64_t lo, int64_t hi) {
      const int64_t nb = hi - lo;
      const float* __restrict dy = gy.data() + lo * c;  // [nb, C]
      std::vector<float> g(static_cast<std::size_t>(nb * c)), p(static_cast<std::size_t>(nb * c));  // [nb, C] each
      gate_and_projection(zp, wgp, bg.value().data(), kg, xp, wpp, bp.value().data(), kp, lo, nb, c, g.data(),
                          p.data());
      // in place: p <- dl = dy p g (1 - g) (the gate's pre-activation), g <- dp = dy g
      for (int64_t e = 0; e < nb * c; ++e) {
        const float ge = g[e];
        p[e] = dy[e] * p[e] * (ge * (1.0f - ge));
        g[e] = dy[e] * ge;
      }
      const float* dl = p.data();
      const float* dp = g.data();
      if (dz) gemm_one_block(false, true, nb, kg, c, 1.0f, dl, c, wgp, c, 1.0f, dz + lo * kg, kg);
      if (dx) gemm_one_block(false, true, nb, kp, c, 1.0f, dp, c, wpp, c, 1.0f, dx + lo * kp, kp);
      if (!weights) return;
      float* dwg = partial.data() + (lo / kRowBlock) * part_size;
      float* dbg = dwg + dwg_size;
      float* dwp = dbg + c;
      float* dbp = dwp + dwp_size;
      gemm_one_block(true, false, kg, c, nb, 1.0f, zp + lo * kg, kg, dl, c, 0.0f, dwg, c);  // zn^T dl
      gemm_one_block(true, false, kp, c, nb, 1.0f, xp + lo * kp, kp, dp, c, 0.0f, dwp, c);  // xn^T dp
      std::fill_n(dbg, c, 0.0f);
      std::fill_n(dbp, c, 0.0f);
      for (int64_t r = 0; r < nb; ++r) {
        const float* __restrict dlr = dl + r * c;
        const float* __restrict dpr = dp + r * c;
        for (int64_t t = 0; t < c; ++t) {
          dbg[t] += dlr[t];
          dbp[t] += dpr[t];
        }
      }
    });
    if (!weights) return;
    std::vector<float> sum(static_cast<std::size_t>(part_size), 0.0f);  // dwg, dbg, dwp, dbp
    parallel_for_blocks(part_size, 1 << 12, [&](int64_t lo, int64_t hi) {
      for (int64_t blk = 0; blk < n_blocks; ++blk)
        for (int64_t e = lo; e < hi; ++e) sum[e] += partial[blk * part_size + e];
    });
    const float* s = sum.data();
    for (const auto& [var, offset, size] : {std::tuple{&wg, int64_t{0}, dwg_size}, std::tuple{&bg, dwg_size, c},
                                            std::tuple{&wp, dwg_size + c, dwp_size},
                                            std::tuple{&bp, dwg_size + c + dwp_size, c}}) {
      if (!var->requires_grad()) continue;
      float* d = var->grad_mut().data();
      for (int64_t e = 0; e < size; ++e) d[e] += s[offset + e];
    }
  });
}

}  // namespace attend::bio
