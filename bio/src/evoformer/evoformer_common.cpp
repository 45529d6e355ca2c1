#include "evoformer_common.hpp"

#include <cmath>

#include "attend/core/error.hpp"
#include "attend/core/init.hpp"
#include "attend/core/ops/layer_norm.hpp"
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
  return ops::layer_norm(x, weight_, bias_, kEps);
}

void require_positive(const std::string& owner, const std::string& key, int64_t value) {
  if (value <= 0) {
    throw InputError(owner + ": option " + quoted_input(key) + " must be positive, got " + std::to_string(value));
  }
}

}  // namespace attend::bio::evoformer_detail
