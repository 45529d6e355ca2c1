#include "attend/core/ops/activation.hpp"

#include <algorithm>
#include <cmath>

#include "attend/core/fast_exp.hpp"
#include "attend/core/fast_sigmoid.hpp"
#include "support.hpp"

namespace attend::ops {

namespace {

/// y = forward(x) elementwise; backward dx += dy * derivative(x, y).
template <class Forward, class Derivative>
Var pointwise(const Var& x, Forward forward, Derivative derivative) {
  const Tensor& xv = x.value();
  Tensor out = Tensor::uninitialized(xv.shape());  // x's shape
  const float* xp = xv.data();
  float* yp = out.data();
  parallel_for_blocks(xv.numel(), detail::kBlock, [&](int64_t lo, int64_t hi) {
    const float* __restrict xs = xp;  // locals, so that the loop vectorises
    float* __restrict ys = yp;
    const Forward f = forward;
    for (int64_t i = lo; i < hi; ++i) ys[i] = f(xs[i]);
  });
  return Var::from_op(std::move(out), {x}, [x, derivative](const Tensor& y, const Tensor& gy) {
    const float* xp = x.value().data();
    const float* yp = y.data();
    const float* g = gy.data();
    float* gx = x.grad_mut().data();
    parallel_for_blocks(gy.numel(), detail::kBlock, [&](int64_t lo, int64_t hi) {
      const float* __restrict xs = xp;  // locals, so that the loop vectorises
      const float* __restrict ys = yp;
      const float* __restrict gs = g;
      float* __restrict gxs = gx;
      const Derivative df = derivative;
      for (int64_t i = lo; i < hi; ++i) gxs[i] += gs[i] * df(xs[i], ys[i]);
    });
  });
}

}  // namespace

Var relu(const Var& x) {
  return pointwise(
      x, [](float v) { return v > 0.0f ? v : 0.0f; },
      [](float v, float) { return v > 0.0f ? 1.0f : 0.0f; });
}

Var elu(const Var& x, float alpha) {
  return pointwise(
      x,
      [alpha](float v) {  // both sides computed, so that the loop vectorises
        const float negative = alpha * expm1_approx(std::min(v, 0.0f));
        return v > 0.0f ? v : negative;
      },
      [alpha](float v, float y) { return v > 0.0f ? 1.0f : y + alpha; });
}

Var leaky_relu(const Var& x, float negative_slope) {
  return pointwise(
      x, [negative_slope](float v) { return v > 0.0f ? v : negative_slope * v; },
      [negative_slope](float v, float) { return v > 0.0f ? 1.0f : negative_slope; });
}

Var sigmoid(const Var& x) {
  return pointwise(
      x, [](float v) { return sigmoid_approx(v); }, [](float, float y) { return y * (1.0f - y); });
}

Var tanh(const Var& x) {
  return pointwise(
      x, [](float v) { return std::tanh(v); }, [](float, float y) { return 1.0f - y * y; });
}

}  // namespace attend::ops
