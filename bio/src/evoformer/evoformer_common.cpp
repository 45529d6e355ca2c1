#include "evoformer_common.hpp"

#include <cmath>

#include "attend/core/error.hpp"
#include "attend/core/init.hpp"
#include "attend/core/ops/layer_norm.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/quoted_input.hpp"

namespace attend::bio::evoformer_detail {

std::unique_ptr<Linear> make_linear(int64_t in, int64_t out, bool bias, Init init, Rng& rng) {
  auto linear = std::make_unique<Linear>(LinearOptions{in, out, bias, rng.split()});
  Var w = linear->weight();  // [in, out]
  switch (init) {
    case Init::kDefault: w.value() = init::normal({in, out}, 1.0 / std::sqrt(double(in)), rng); break;
    case Init::kRelu: w.value() = init::normal({in, out}, std::sqrt(2.0 / double(in)), rng); break;
    case Init::kGlorot: break;  // Linear's own initialisation
    case Init::kGating:
    case Init::kFinal: w.value().fill(0.0f); break;
  }
  if (bias && init == Init::kGating) {
    Var b = linear->bias();  // [out]
    b.value().fill(1.0f);
  }
  return linear;
}

LayerNormModule::LayerNormModule(int64_t c) : c_(c) {
  weight_ = add_parameter("weight", init::ones({c}));  // [c]
  bias_ = add_parameter("bias", init::zeros({c}));     // [c]
}

Var LayerNormModule::forward(const Var& x) const {
  ATTEND_CHECK(x.value().rank() >= 1 && x.dim(-1) == c_,
               "layer_norm expects [..., " << c_ << "], got " << shape_to_string(x.shape()));
  return ops::layer_norm(x, weight_, bias_, 1e-5f);
}

namespace {

// dst [B, H, N, c] <-> src [B, N, H * c]; `to_heads` picks the direction, `add` accumulates.
void copy_heads(const float* src, float* dst, int64_t batch, int64_t n, int64_t heads, int64_t c,
                bool to_heads, bool add) {
  parallel_for(0, batch * n, [&](int64_t row) {
    const int64_t b = row / n, i = row % n;
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t flat = row * heads * c + h * c;           // [B, N, H, c]
      const int64_t split = ((b * heads + h) * n + i) * c;    // [B, H, N, c]
      const float* s = src + (to_heads ? flat : split);
      float* d = dst + (to_heads ? split : flat);
      for (int64_t t = 0; t < c; ++t) d[t] = add ? d[t] + s[t] : s[t];
    }
  });
}

}  // namespace

Var heads_first(const Var& x, int64_t n_heads) {
  const Tensor& xv = x.value();
  ATTEND_CHECK(xv.rank() == 3 && n_heads > 0 && xv.dim(2) % n_heads == 0,
               "heads_first expects [B, N, H * c] with H = " << n_heads << ", got "
                                                            << shape_to_string(xv.shape()));
  const int64_t batch = xv.dim(0), n = xv.dim(1), c = xv.dim(2) / n_heads;
  Tensor out({batch, n_heads, n, c});  // [B, H, N, c]
  copy_heads(xv.data(), out.data(), batch, n, n_heads, c, true, false);
  return Var::from_op(std::move(out), {x}, [x, batch, n, n_heads, c](const Tensor&, const Tensor& gy) {
    copy_heads(gy.data(), x.grad_mut().data(), batch, n, n_heads, c, false, true);
  });
}

Var heads_last(const Var& o) {
  const Tensor& ov = o.value();
  ATTEND_CHECK(ov.rank() == 4, "heads_last expects [B, H, N, c], got " << shape_to_string(ov.shape()));
  const int64_t batch = ov.dim(0), heads = ov.dim(1), n = ov.dim(2), c = ov.dim(3);
  Tensor out({batch, n, heads * c});  // [B, N, H * c]
  copy_heads(ov.data(), out.data(), batch, n, heads, c, false, false);
  return Var::from_op(std::move(out), {o}, [o, batch, n, heads, c](const Tensor&, const Tensor& gy) {
    copy_heads(gy.data(), o.grad_mut().data(), batch, n, heads, c, true, true);
  });
}

void require_positive(const std::string& owner, const std::string& key, int64_t value) {
  if (value <= 0) {
    throw InputError(owner + ": option " + quoted_input(key) + " must be positive, got " + std::to_string(value));
  }
}

}  // namespace attend::bio::evoformer_detail
