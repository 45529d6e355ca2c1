#include "attend/bio/evoformer/triangle_multiplication.hpp"

#include "attend/bio/evoformer/gated_output_projection.hpp"
#include "attend/bio/evoformer/gated_projection.hpp"
#include "attend/core/error.hpp"
#include "attend/core/ops/batched_matmul.hpp"
#include "attend/core/registry.hpp"
#include "evoformer_common.hpp"

namespace attend::bio {

using evoformer_detail::LayerNormModule;

const OptionList<TriangleMultiplicationOptions>& TriangleMultiplicationOptions::option_list(bool outgoing) {
  using O = TriangleMultiplicationOptions;
  const auto make = [](const char* owner) {
    return OptionList<O>(owner)
        .required("c_z", &O::c_z, "pair channels", OptionRange::positive())
        .add("c_hidden", &O::c_hidden, "channels of the a and b edges", OptionRange::positive())
        .add("seed", &O::seed, "seeds the initialisation");
  };
  static const OptionList<O> first = make("triangle_multiplication_outgoing");
  static const OptionList<O> second = make("triangle_multiplication_incoming");
  return outgoing ? first : second;
}

TriangleMultiplication::TriangleMultiplication(TriangleMultiplicationOptions options, bool outgoing)
    : options_(options), outgoing_(outgoing) {
  using evoformer_detail::Init;
  using evoformer_detail::make_linear;
  ATTEND_CHECK(options.c_z > 0 && options.c_hidden > 0, type_name() << ": c_z and c_hidden must be positive");
  Rng rng(options.seed);
  const int64_t cz = options.c_z, c = options.c_hidden;
  layer_norm_in_ = &add_child("layer_norm_in", std::make_unique<LayerNormModule>(cz));
  linear_a_p_ = &add_child("linear_a_p", make_linear(cz, c, true, Init::kDefault, rng));
  linear_a_g_ = &add_child("linear_a_g", make_linear(cz, c, true, Init::kGating, rng));
  linear_b_p_ = &add_child("linear_b_p", make_linear(cz, c, true, Init::kDefault, rng));
  linear_b_g_ = &add_child("linear_b_g", make_linear(cz, c, true, Init::kGating, rng));
  linear_g_ = &add_child("linear_g", make_linear(cz, cz, true, Init::kGating, rng));
  layer_norm_out_ = &add_child("layer_norm_out", std::make_unique<LayerNormModule>(c));
  linear_z_ = &add_child("linear_z", make_linear(c, cz, true, Init::kFinal, rng));
}

std::string TriangleMultiplication::type_name() const {
  return outgoing_ ? "triangle_multiplication_outgoing" : "triangle_multiplication_incoming";
}

Var TriangleMultiplication::forward(const Var& z) const {
  // AF2 Alg. 11 (outgoing) and Alg. 12 (incoming)
  ATTEND_CHECK(z.value().rank() == 3 && z.dim(0) == z.dim(1) && z.dim(2) == options_.c_z,
               type_name() << " expects z [n_res, n_res, " << options_.c_z << "], got "
                           << shape_to_string(z.shape()));
  const Var zn = static_cast<const LayerNormModule&>(*layer_norm_in_).forward(z);  // [n_res, n_res, c_z]
  const Var at = gated_projection(zn, linear_a_g_->weight(), linear_a_g_->bias(), linear_a_p_->weight(),
                                  linear_a_p_->bias());  // outgoing [c, i, k]; incoming [c, k, i]
  const Var bt = gated_projection(zn, linear_b_g_->weight(), linear_b_g_->bias(), linear_b_p_->weight(),
                                  linear_b_p_->bias());  // outgoing [c, j, k]; incoming [c, k, j]
  const Var x = outgoing_ ? ops::batched_matmul(at, bt, false, true)   // [c, i, j]
                          : ops::batched_matmul(at, bt, true, false);  // [c, i, j]
  // sigmoid(linear_g(zn)) * linear_z(layer_norm_out(x)), x normalised over its first axis
  const auto& norm_out = static_cast<const LayerNormModule&>(*layer_norm_out_);
  return gated_output_projection(zn, linear_g_->weight(), linear_g_->bias(), x, norm_out.weight(), norm_out.bias(),
                                 LayerNormModule::kEps, linear_z_->weight(), linear_z_->bias());  // [n_res, n_res, c_z]
}

void TriangleMultiplication::register_into(Registry& registry) {
  registry.add("triangle_multiplication_outgoing", [](const Json& config) -> std::unique_ptr<Module> {
    return std::make_unique<TriangleMultiplication>(
        TriangleMultiplicationOptions::from_json(config, true), true);
  });
  registry.add("triangle_multiplication_incoming", [](const Json& config) -> std::unique_ptr<Module> {
    return std::make_unique<TriangleMultiplication>(
        TriangleMultiplicationOptions::from_json(config, false), false);
  });
  registry.document("triangle_multiplication_outgoing", TriangleMultiplicationOptions::option_list(true).docs());
  registry.document("triangle_multiplication_incoming", TriangleMultiplicationOptions::option_list(false).docs());
}

}  // namespace attend::bio
