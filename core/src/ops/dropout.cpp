#include "attend/core/ops/dropout.hpp"

#include "attend/core/error.hpp"
#include "attend/core/random.hpp"
#include "support.hpp"

namespace attend::ops {

namespace {

/// dst[i] = src[i] * keep_scale for kept elements, 0 for dropped ones (dst += when `add`).
/// The add / assign choice is outside the loops so that both vectorise (mix64 included).
void apply_mask(const float* src, float* dst, int64_t n, float p, uint64_t seed, bool add) {
  const float keep_scale = 1.0f / (1.0f - p);
  const CounterStream stream(seed);
  parallel_for_blocks(n, detail::kBlock, [=](int64_t lo, int64_t hi) {
    const float* __restrict in = src;  // by value, so that the loops vectorise
    float* __restrict out = dst;
    if (add) {
      for (int64_t i = lo; i < hi; ++i) {
        out[i] += stream.at(static_cast<uint64_t>(i)) >= p ? in[i] * keep_scale : 0.0f;
      }
    } else {
      for (int64_t i = lo; i < hi; ++i) {
        out[i] = stream.at(static_cast<uint64_t>(i)) >= p ? in[i] * keep_scale : 0.0f;
      }
    }
  });
}

}  // namespace

Var dropout(const Var& x, float p, uint64_t seed, bool training) {
  ATTEND_CHECK(p >= 0.0f && p < 1.0f, "dropout probability must be in [0, 1), got " << p);
  if (!training || p == 0.0f) return x;
  const Tensor& xv = x.value();
  Tensor out = Tensor::uninitialized(xv.shape());  // x's shape
  apply_mask(xv.data(), out.data(), xv.numel(), p, seed, false);
  return Var::from_op(std::move(out), {x}, [x, p, seed](const Tensor&, const Tensor& gy) {
    apply_mask(gy.data(), x.grad_mut().data(), gy.numel(), p, seed, true);
  });
}

}  // namespace attend::ops
