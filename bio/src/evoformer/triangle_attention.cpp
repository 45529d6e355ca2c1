#include "attend/bio/evoformer/triangle_attention.hpp"

#include "attend/core/error.hpp"
#include "attend/core/ops/shape.hpp"
#include "attend/core/registry.hpp"
#include "evoformer_common.hpp"

namespace attend::bio {

using evoformer_detail::LayerNormModule;

const OptionList<TriangleAttentionOptions>& TriangleAttentionOptions::option_list(bool starting_node) {
  using O = TriangleAttentionOptions;
  const auto make = [](const char* owner) {
    return OptionList<O>(owner)
        .required("c_z", &O::c_z, "pair channels", OptionRange::positive())
        .include(EvoformerAttentionOptions<4>::option_list());
  };
  static const OptionList<O> first = make("triangle_attention_starting_node");
  static const OptionList<O> second = make("triangle_attention_ending_node");
  return starting_node ? first : second;
}

TriangleAttention::TriangleAttention(TriangleAttentionOptions options, bool starting)
    : options_(options), starting_(starting) {
  using evoformer_detail::Init;
  ATTEND_CHECK(options.c_z > 0 && options.c_hidden > 0 && options.n_heads > 0,
               type_name() << ": c_z, c_hidden and n_heads must be positive");
  Rng rng(options.seed);
  layer_norm_ = &add_child("layer_norm", std::make_unique<LayerNormModule>(options.c_z));
  linear_b_ = &add_child("linear_b",
                         evoformer_detail::make_linear(options.c_z, options.n_heads, false, Init::kDefault, rng));
  mha_ = &add_child("mha", std::make_unique<GatedAttention>(options.c_z, options.c_hidden, options.n_heads, rng));
}

std::string TriangleAttention::type_name() const {
  return starting_ ? "triangle_attention_starting_node" : "triangle_attention_ending_node";
}

Var TriangleAttention::forward(const Var& z, Tensor* weights_out) const {
  // AF2 Alg. 13 (starting node); Alg. 14 (ending node) is Alg. 13 on the transposed z
  ATTEND_CHECK(z.value().rank() == 3 && z.dim(0) == z.dim(1) && z.dim(2) == options_.c_z,
               type_name() << " expects z [n_res, n_res, " << options_.c_z << "], got "
                           << shape_to_string(z.shape()));
  const int64_t n_res = z.dim(0), n_heads = options_.n_heads;
  // The ending node is the starting node on z^T: its batch (j) is axis 1 of z, read in place.
  const Var zn = static_cast<const LayerNormModule&>(*layer_norm_).forward(z);  // [n_res, n_res, c_z]
  const Var b = linear_b_->forward(zn);  // starting [j, k, n_heads]; ending [k, j, n_heads]
  const Var bias = ops::reshape(ops::permute(b, starting_ ? std::vector<int>{2, 0, 1} : std::vector<int>{2, 1, 0}),
                                {1, n_heads, n_res, n_res});  // [1, H, j, k]
  return mha_->forward(zn, {bias}, options_.chunk_size, weights_out, starting_ ? 0 : 1);  // [n_res, n_res, c_z]
}

void TriangleAttention::register_into(Registry& registry) {
  registry.add("triangle_attention_starting_node", [](const Json& config) -> std::unique_ptr<Module> {
    return std::make_unique<TriangleAttention>(
        TriangleAttentionOptions::from_json(config, true), true);
  });
  registry.add("triangle_attention_ending_node", [](const Json& config) -> std::unique_ptr<Module> {
    return std::make_unique<TriangleAttention>(
        TriangleAttentionOptions::from_json(config, false), false);
  });
  registry.document("triangle_attention_starting_node", TriangleAttentionOptions::option_list(true).docs());
  registry.document("triangle_attention_ending_node", TriangleAttentionOptions::option_list(false).docs());
}

}  // namespace attend::bio
