#include "attend/core/ops/head_dot.hpp"

#include <vector>

#include "attend/core/error.hpp"
#include "attend/core/parallel.hpp"

namespace attend::ops {

namespace {
constexpr int64_t kNodeBlock = 256;
}  // namespace

Var head_dot(const Var& x, const Var& a) {
  const Tensor& xv = x.value();
  const Tensor& av = a.value();
  ATTEND_CHECK(xv.rank() == 3 && av.rank() == 2 && xv.dim(1) == av.dim(0) &&
                   xv.dim(2) == av.dim(1),
               "head_dot of " << shape_to_string(xv.shape()) << " and "
                              << shape_to_string(av.shape()) << ": expected [N, H, C] and [H, C]");
  const int64_t n = xv.dim(0), heads = xv.dim(1), c = xv.dim(2);
  Tensor out = Tensor::uninitialized({n, heads});  // [N, H]
  {
    const float* xp = xv.data();
    const float* ap = av.data();
    float* op = out.data();
    parallel_for_blocks(n, kNodeBlock, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) {
        for (int64_t h = 0; h < heads; ++h) {
          const float* xr = xp + (i * heads + h) * c;
          const float* ar = ap + h * c;
          float s = 0.0f;
          for (int64_t k = 0; k < c; ++k) s += xr[k] * ar[k];
          op[i * heads + h] = s;
        }
      }
    });
  }
  return Var::from_op(std::move(out), {x, a}, [x, a, n, heads, c](const Tensor&, const Tensor& gy) {
    // dx[n, h, :] += g[n, h] a[h, :]; da[h, :] += sum_n g[n, h] x[n, h, :], per block then in
    // order. Both in one parallel region over the same node blocks (a GAT layer's backward
    // runs two head_dots: 4 regions were 2 of its 14).
    const float* g = gy.data();  // [N, H]
    const float* ap = a.value().data();
    const float* xp = x.value().data();
    float* gx = x.requires_grad() ? x.grad_mut().data() : nullptr;
    const int64_t n_blocks = (n + kNodeBlock - 1) / kNodeBlock;
    std::vector<float> partial(a.requires_grad() ? n_blocks * heads * c : 0, 0.0f);  // [blocks, H, C]
    parallel_for_blocks(n, kNodeBlock, [&](int64_t lo, int64_t hi) {
      if (gx) {
        for (int64_t i = lo; i < hi; ++i) {
          for (int64_t h = 0; h < heads; ++h) {
            const float gi = g[i * heads + h];
            float* gr = gx + (i * heads + h) * c;
            const float* ar = ap + h * c;
            for (int64_t k = 0; k < c; ++k) gr[k] += gi * ar[k];
          }
        }
      }
      if (!partial.empty()) {
        float* acc = partial.data() + (lo / kNodeBlock) * heads * c;
        for (int64_t i = lo; i < hi; ++i) {
          for (int64_t h = 0; h < heads; ++h) {
            const float gi = g[i * heads + h];
            const float* xr = xp + (i * heads + h) * c;
            float* ar = acc + h * c;
            for (int64_t k = 0; k < c; ++k) ar[k] += gi * xr[k];
          }
        }
      }
    });
    if (!partial.empty()) {
      float* ga = a.grad_mut().data();
      for (int64_t b = 0; b < n_blocks; ++b) {
        const float* acc = partial.data() + b * heads * c;
        for (int64_t k = 0; k < heads * c; ++k) ga[k] += acc[k];
      }
    }
  });
}

}  // namespace attend::ops
