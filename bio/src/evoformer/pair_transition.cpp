#include "attend/bio/evoformer/pair_transition.hpp"

#include "attend/bio/evoformer/relu_feed_forward.hpp"
#include "attend/core/error.hpp"
#include "attend/core/registry.hpp"
#include "evoformer_common.hpp"

namespace attend::bio {

using evoformer_detail::LayerNormModule;

const OptionList<PairTransitionOptions>& PairTransitionOptions::option_list() {
  using O = PairTransitionOptions;
  static const OptionList<O> list =
      OptionList<O>("pair_transition")
          .required("c_z", &O::c_z, "channels", OptionRange::positive())
          .add("n", &O::n, "hidden width factor: the hidden layer has n * c_z channels", OptionRange::positive())
          .add("seed", &O::seed, "seeds the initialisation");
  return list;
}

PairTransition::PairTransition(PairTransitionOptions options) : options_(options) {
  using evoformer_detail::Init;
  using evoformer_detail::make_linear;
  ATTEND_CHECK(options.c_z > 0 && options.n > 0, "pair_transition: c_z and n must be positive");
  Rng rng(options.seed);
  const int64_t hidden = options.n * options.c_z;
  layer_norm_ = &add_child("layer_norm", std::make_unique<LayerNormModule>(options.c_z));
  linear_1_ = &add_child("linear_1", make_linear(options.c_z, hidden, true, Init::kRelu, rng));
  linear_2_ = &add_child("linear_2", make_linear(hidden, options.c_z, true, Init::kFinal, rng));
}

Var PairTransition::forward(const Var& x) const {
  // AF2 Alg. 15
  ATTEND_CHECK(x.value().rank() == 3 && x.dim(2) == options_.c_z,
               "pair_transition expects [n_res, n_res, c_z] with c_z = " << options_.c_z << ", got " << shape_to_string(x.shape()));
  const Var xn = static_cast<const LayerNormModule&>(*layer_norm_).forward(x);  // [n_res, n_res, c_z]
  return relu_feed_forward(xn, linear_1_->weight(), linear_1_->bias(), linear_2_->weight(),
                           linear_2_->bias());  // [n_res, n_res, c_z]
}

void PairTransition::register_into(Registry& registry) {
  registry.add("pair_transition", [](const Json& config) -> std::unique_ptr<Module> {
    return std::make_unique<PairTransition>(PairTransitionOptions::from_json(config));
  });
  registry.document("pair_transition", PairTransitionOptions::option_list().docs());
}

}  // namespace attend::bio
