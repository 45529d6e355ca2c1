#include "attend/core/layers/linear.hpp"

#include "attend/core/init.hpp"
#include "attend/core/ops/matmul.hpp"
#include "attend/core/options_json.hpp"
#include "attend/core/registry.hpp"

namespace attend {

LinearOptions LinearOptions::from_json(const Json& config) {
  check_option_keys(config, {"in", "out", "bias", "seed"}, "linear");
  LinearOptions o;
  o.in = option_required<int64_t>(config, "in", "linear");
  o.out = option_required<int64_t>(config, "out", "linear");
  o.bias = option_or(config, "bias", o.bias, "linear");
  o.seed = option_or(config, "seed", o.seed, "linear");
  if (o.in <= 0 || o.out <= 0) {
    throw InputError("linear: 'in' and 'out' must be positive, got in=" + std::to_string(o.in) +
                     ", out=" + std::to_string(o.out));
  }
  return o;
}

Json LinearOptions::to_json() const {
  return Json{{"in", in}, {"out", out}, {"bias", bias}, {"seed", seed}};
}

Linear::Linear(LinearOptions options) : options_(options) {
  ATTEND_CHECK(options.in > 0 && options.out > 0,
               "linear: in and out must be positive, got " << options.in << ", " << options.out);
  Rng rng(options.seed);
  weight_ = add_parameter("weight", init::glorot_uniform({options.in, options.out}, options.in,
                                                         options.out, rng));  // [in, out]
  if (options.bias) bias_ = add_parameter("bias", init::zeros({options.out}));  // [out]
}

Var Linear::forward(const Var& x) const {
  ATTEND_CHECK(x.value().rank() >= 1 && x.dim(-1) == options_.in,
               "linear expects [..., " << options_.in << "] input, got "
                                       << shape_to_string(x.shape()));
  return ops::linear(x, weight_, bias_);
}

void Linear::register_into(Registry& registry) {
  registry.add("linear", [](const Json& config) -> std::unique_ptr<Module> {
    return std::make_unique<Linear>(LinearOptions::from_json(config));
  });
}

}  // namespace attend
