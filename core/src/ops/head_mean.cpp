#include "attend/core/ops/head_mean.hpp"

#include "attend/core/error.hpp"
#include "attend/core/parallel.hpp"

namespace attend::ops {

namespace {
constexpr int64_t kNodeBlock = 256;
}

Var head_mean(const Var& x) {
  const Tensor& xv = x.value();
  ATTEND_CHECK(xv.rank() == 3, "head_mean expects [N, H, C], got " << shape_to_string(xv.shape()));
  const int64_t n = xv.dim(0), h = xv.dim(1), c = xv.dim(2);
  ATTEND_CHECK(h > 0, "head_mean of zero heads");
  const float inv = 1.0f / static_cast<float>(h);
  Tensor out({n, c});  // [N, C]
  parallel_for_blocks(n, kNodeBlock, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      float* y = out.data() + i * c;
      for (int64_t k = 0; k < h; ++k) {
        const float* row = xv.data() + (i * h + k) * c;
        for (int64_t j = 0; j < c; ++j) y[j] += row[j];
      }
      for (int64_t j = 0; j < c; ++j) y[j] *= inv;
    }
  });
  return Var::from_op(std::move(out), {x}, [x, n, h, c, inv](const Tensor&, const Tensor& gy) {
    float* gx = x.grad_mut().data();
    parallel_for_blocks(n, kNodeBlock, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i)
        for (int64_t k = 0; k < h; ++k)
          for (int64_t j = 0; j < c; ++j) gx[(i * h + k) * c + j] += gy[i * c + j] * inv;
    });
  });
}

}  // namespace attend::ops
