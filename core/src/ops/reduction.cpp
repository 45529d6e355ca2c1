#include "attend/core/ops/reduction.hpp"

#include "attend/core/error.hpp"
#include "support.hpp"

namespace attend::ops {

namespace {

/// factor * sum(x) as a scalar; backward adds factor * dy to every element of dx.
Var scaled_sum(const Var& x, double factor) {
  const Tensor& xv = x.value();
  const float* xp = xv.data();
  const double total = detail::block_sum(xv.numel(), detail::kBlock,
                                         [xp](int64_t i) { return static_cast<double>(xp[i]); });
  Tensor out = Tensor::scalar(static_cast<float>(total * factor));  // []
  return Var::from_op(std::move(out), {x}, [x, factor](const Tensor&, const Tensor& gy) {
    const float g = static_cast<float>(gy.item() * factor);
    Tensor& gx = x.grad_mut();
    float* gp = gx.data();
    parallel_for_blocks(gx.numel(), detail::kBlock, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) gp[i] += g;
    });
  });
}

}  // namespace

Var sum(const Var& x) { return scaled_sum(x, 1.0); }

Var mean(const Var& x) {
  const int64_t n = x.value().numel();
  ATTEND_CHECK(n > 0, "mean of an empty tensor of shape " << shape_to_string(x.shape()));
  return scaled_sum(x, 1.0 / static_cast<double>(n));
}

}  // namespace attend::ops
