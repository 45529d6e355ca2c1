#include "attend/bio/evoformer/msa_transition.hpp"

#include "attend/bio/evoformer/relu_feed_forward.hpp"
#include "attend/core/error.hpp"
#include "attend/core/registry.hpp"
#include "evoformer_common.hpp"

namespace attend::bio {

using evoformer_detail::LayerNormModule;

const OptionList<MsaTransitionOptions>& MsaTransitionOptions::option_list() {
  using O = MsaTransitionOptions;
  static const OptionList<O> list =
      OptionList<O>("msa_transition")
          .required("c_m", &O::c_m, "channels", OptionRange::positive())
          .add("n", &O::n, "hidden width factor: the hidden layer has n * c_m channels", OptionRange::positive())
          .add("seed", &O::seed, "seeds the initialisation");
  return list;
}

MsaTransition::MsaTransition(MsaTransitionOptions options) : options_(options) {
  using evoformer_detail::Init;
  using evoformer_detail::make_linear;
  ATTEND_CHECK(options.c_m > 0 && options.n > 0, "msa_transition: c_m and n must be positive");
  Rng rng(options.seed);
  const int64_t hidden = options.n * options.c_m;
  layer_norm_ = &add_child("layer_norm", std::make_unique<LayerNormModule>(options.c_m));
  linear_1_ = &add_child("linear_1", make_linear(options.c_m, hidden, true, Init::kRelu, rng));
  linear_2_ = &add_child("linear_2", make_linear(hidden, options.c_m, true, Init::kFinal, rng));
}

Var MsaTransition::forward(const Var& x) const {
  // AF2 Alg. 9
  ATTEND_CHECK(x.value().rank() == 3 && x.dim(2) == options_.c_m,
               "msa_transition expects [n_seq, n_res, c_m] with c_m = " << options_.c_m << ", got " << shape_to_string(x.shape()));
  const Var xn = static_cast<const LayerNormModule&>(*layer_norm_).forward(x);  // [n_seq, n_res, c_m]
  return relu_feed_forward(xn, linear_1_->weight(), linear_1_->bias(), linear_2_->weight(),
                           linear_2_->bias());  // [n_seq, n_res, c_m]
}

void MsaTransition::register_into(Registry& registry) {
  registry.add("msa_transition", [](const Json& config) -> std::unique_ptr<Module> {
    return std::make_unique<MsaTransition>(MsaTransitionOptions::from_json(config));
  });
  registry.document("msa_transition", MsaTransitionOptions::option_list().docs());
}

}  // namespace attend::bio
