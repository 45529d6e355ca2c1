#include "attend/bio/evoformer/shared_dropout.hpp"

#include "attend/core/error.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/random.hpp"

namespace attend::bio {

namespace {

// dst = mask * src (dst += when `add`), x [A, B, C], mask shared over `shared_axis`.
void apply_shared_mask(const float* src, float* dst, int64_t a, int64_t b, int64_t c, float p,
                       uint64_t seed, int shared_axis, bool add) {
  const float keep_scale = 1.0f / (1.0f - p);
  const CounterStream stream(seed);
  parallel_for(0, a * b, [&](int64_t row) {
    const int64_t mask_row = shared_axis == 0 ? row % b : row / b;  // [1, B] or [A, 1]
    const float* s = src + row * c;
    float* d = dst + row * c;
    for (int64_t t = 0; t < c; ++t) {
      const float keep = stream.at(static_cast<uint64_t>(mask_row * c + t)) >= p ? keep_scale : 0.0f;
      d[t] = add ? d[t] + s[t] * keep : s[t] * keep;
    }
  });
}

}  // namespace

Var shared_dropout(const Var& x, float p, uint64_t seed, bool training, int shared_axis) {
  ATTEND_CHECK(p >= 0.0f && p < 1.0f, "dropout probability must be in [0, 1), got " << p);
  ATTEND_CHECK(shared_axis == 0 || shared_axis == 1, "shared_dropout: shared_axis must be 0 or 1");
  const Tensor& xv = x.value();
  ATTEND_CHECK(xv.rank() == 3, "shared_dropout expects [A, B, C], got " << shape_to_string(xv.shape()));
  if (!training || p == 0.0f) return x;
  const int64_t a = xv.dim(0), b = xv.dim(1), c = xv.dim(2);
  Tensor out(xv.shape());  // [A, B, C]
  apply_shared_mask(xv.data(), out.data(), a, b, c, p, seed, shared_axis, false);
  return Var::from_op(std::move(out), {x}, [x, a, b, c, p, seed, shared_axis](const Tensor&, const Tensor& gy) {
    apply_shared_mask(gy.data(), x.grad_mut().data(), a, b, c, p, seed, shared_axis, true);
  });
}

}  // namespace attend::bio
