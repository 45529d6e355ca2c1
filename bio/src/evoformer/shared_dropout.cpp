#include "attend/bio/evoformer/shared_dropout.hpp"

#include <vector>

#include "attend/core/error.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/random.hpp"

namespace attend::bio {

namespace {

// The mask of x [A, B, C] shared over `shared_axis`: [B, C] (axis 0) or [A, C] (axis 1), each
// element 1 / (1 - p) where counter_uniform(seed, e) >= p, else 0. Drawn once per call, not
// once per row of x.
std::vector<float> shared_mask(int64_t a, int64_t b, int64_t c, float p, uint64_t seed, int shared_axis) {
  const int64_t mask_rows = shared_axis == 0 ? b : a;
  const float keep_scale = 1.0f / (1.0f - p);
  const CounterStream stream(seed);
  std::vector<float> mask(static_cast<std::size_t>(mask_rows * c));
  parallel_for(0, mask_rows, [&](int64_t row) {
    for (int64_t t = 0; t < c; ++t) {
      const uint64_t e = static_cast<uint64_t>(row * c + t);
      mask[e] = stream.at(e) >= p ? keep_scale : 0.0f;
    }
  });
  return mask;
}

// dst = base + mask * src over x [A, B, C] (base may be dst itself, or null for 0), the mask
// [B, C] or [A, C] from shared_mask.
void apply_shared_mask(const float* src, const float* base, float* dst, const std::vector<float>& mask, int64_t a,
                       int64_t b, int64_t c, int shared_axis) {
  parallel_for(0, a * b, [&](int64_t row) {
    const int64_t mask_row = shared_axis == 0 ? row % b : row / b;  // [1, B] or [A, 1]
    const float* __restrict s = src + row * c;
    const float* __restrict m = mask.data() + mask_row * c;
    float* d = dst + row * c;
    if (base) {
      const float* r = base + row * c;
      for (int64_t t = 0; t < c; ++t) d[t] = r[t] + s[t] * m[t];
    } else {
      for (int64_t t = 0; t < c; ++t) d[t] = s[t] * m[t];
    }
  });
}

void check_arguments(const Tensor& x, float p, int shared_axis) {
  ATTEND_CHECK(p >= 0.0f && p < 1.0f, "dropout probability must be in [0, 1), got " << p);
  ATTEND_CHECK(shared_axis == 0 || shared_axis == 1, "shared_dropout: shared_axis must be 0 or 1");
  ATTEND_CHECK(x.rank() == 3, "shared_dropout expects [A, B, C], got " << shape_to_string(x.shape()));
}

}  // namespace

Var shared_dropout(const Var& x, float p, uint64_t seed, bool training, int shared_axis) {
  const Tensor& xv = x.value();
  check_arguments(xv, p, shared_axis);
  if (!training || p == 0.0f) return x;
  const int64_t a = xv.dim(0), b = xv.dim(1), c = xv.dim(2);
  Tensor out = Tensor::uninitialized(xv.shape());  // [A, B, C], every element written
  apply_shared_mask(xv.data(), nullptr, out.data(), shared_mask(a, b, c, p, seed, shared_axis), a, b, c,
                    shared_axis);
  return Var::from_op(std::move(out), {x}, [x, a, b, c, p, seed, shared_axis](const Tensor&, const Tensor& gy) {
    float* dx = x.grad_mut().data();
    apply_shared_mask(gy.data(), dx, dx, shared_mask(a, b, c, p, seed, shared_axis), a, b, c, shared_axis);
  });
}

Var add_shared_dropout(const Var& residual, const Var& x, float p, uint64_t seed, bool training, int shared_axis) {
  const Tensor& xv = x.value();
  check_arguments(xv, p, shared_axis);
  ATTEND_CHECK(residual.value().shape() == xv.shape(),
               "add_shared_dropout: residual " << shape_to_string(residual.shape()) << " against x "
                                               << shape_to_string(xv.shape()));
  if (!training || p == 0.0f) return ops::add(residual, x);
  const int64_t a = xv.dim(0), b = xv.dim(1), c = xv.dim(2);
  Tensor out = Tensor::uninitialized(xv.shape());  // [A, B, C], every element written
  apply_shared_mask(xv.data(), residual.value().data(), out.data(), shared_mask(a, b, c, p, seed, shared_axis), a,
                    b, c, shared_axis);
  return Var::from_op(std::move(out), {residual, x},
                      [residual, x, a, b, c, p, seed, shared_axis](const Tensor&, const Tensor& gy) {
    if (residual.requires_grad()) residual.accumulate_grad(gy);
    if (!x.requires_grad()) return;
    float* dx = x.grad_mut().data();
    apply_shared_mask(gy.data(), dx, dx, shared_mask(a, b, c, p, seed, shared_axis), a, b, c, shared_axis);
  });
}

}  // namespace attend::bio
