#include "attend/bio/evoformer/triangle_multiplication.hpp"

#include "attend/core/error.hpp"
#include "attend/core/ops/activation.hpp"
#include "attend/core/ops/batched_matmul.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/ops/shape.hpp"
#include "attend/core/options_json.hpp"
#include "attend/core/registry.hpp"
#include "evoformer_common.hpp"

namespace attend::bio {

using evoformer_detail::LayerNormModule;

TriangleMultiplicationOptions TriangleMultiplicationOptions::from_json(const Json& config,
                                                                       const std::string& owner) {
  check_option_keys(config, {"c_z", "c_hidden", "seed"}, owner);
  TriangleMultiplicationOptions o;
  o.c_z = option_required<int64_t>(config, "c_z", owner);
  o.c_hidden = option_or(config, "c_hidden", o.c_hidden, owner);
  o.seed = option_or(config, "seed", o.seed, owner);
  evoformer_detail::require_positive(owner, "c_z", o.c_z);
  evoformer_detail::require_positive(owner, "c_hidden", o.c_hidden);
  return o;
}

Json TriangleMultiplicationOptions::to_json() const {
  return Json{{"c_z", c_z}, {"c_hidden", c_hidden}, {"seed", seed}};
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
  const Var a = ops::mul(ops::sigmoid(linear_a_g_->forward(zn)), linear_a_p_->forward(zn));  // [n_res, n_res, c]
  const Var b = ops::mul(ops::sigmoid(linear_b_g_->forward(zn)), linear_b_p_->forward(zn));  // [n_res, n_res, c]
  const Var at = ops::permute(a, {2, 0, 1});  // outgoing [c, i, k]; incoming [c, k, i]
  const Var bt = ops::permute(b, {2, 0, 1});  // outgoing [c, j, k]; incoming [c, k, j]
  const Var x = outgoing_ ? ops::batched_matmul(at, bt, false, true)   // [c, i, j]
                          : ops::batched_matmul(at, bt, true, false);  // [c, i, j]
  const Var xn = static_cast<const LayerNormModule&>(*layer_norm_out_).forward(ops::permute(x, {1, 2, 0}));  // [n_res, n_res, c]
  const Var g = ops::sigmoid(linear_g_->forward(zn));  // [n_res, n_res, c_z]
  return ops::mul(g, linear_z_->forward(xn));          // [n_res, n_res, c_z]
}

void TriangleMultiplication::register_into(Registry& registry) {
  registry.add("triangle_multiplication_outgoing", [](const Json& config) -> std::unique_ptr<Module> {
    return std::make_unique<TriangleMultiplication>(
        TriangleMultiplicationOptions::from_json(config, "triangle_multiplication_outgoing"), true);
  });
  registry.add("triangle_multiplication_incoming", [](const Json& config) -> std::unique_ptr<Module> {
    return std::make_unique<TriangleMultiplication>(
        TriangleMultiplicationOptions::from_json(config, "triangle_multiplication_incoming"), false);
  });
}

}  // namespace attend::bio
