#include "attend/bio/evoformer/msa_row_attention.hpp"

#include "attend/core/error.hpp"
#include "attend/core/ops/shape.hpp"
#include "attend/core/registry.hpp"
#include "evoformer_common.hpp"

namespace attend::bio {

using evoformer_detail::LayerNormModule;

const OptionList<MsaRowAttentionOptions>& MsaRowAttentionOptions::option_list() {
  using O = MsaRowAttentionOptions;
  static const OptionList<O> list =
      OptionList<O>("msa_row_attention")
          .required("c_m", &O::c_m, "MSA channels", OptionRange::positive())
          .required("c_z", &O::c_z, "pair channels", OptionRange::positive())
          .include(EvoformerAttentionOptions<8>::option_list());
  return list;
}

MsaRowAttention::MsaRowAttention(MsaRowAttentionOptions options) : options_(options) {
  using evoformer_detail::Init;
  ATTEND_CHECK(options.c_m > 0 && options.c_z > 0 && options.c_hidden > 0 && options.n_heads > 0,
               "msa_row_attention: c_m, c_z, c_hidden and n_heads must be positive");
  Rng rng(options.seed);
  layer_norm_m_ = &add_child("layer_norm_m", std::make_unique<LayerNormModule>(options.c_m));
  layer_norm_z_ = &add_child("layer_norm_z", std::make_unique<LayerNormModule>(options.c_z));
  linear_z_ = &add_child("linear_z",
                         evoformer_detail::make_linear(options.c_z, options.n_heads, false, Init::kDefault, rng));
  mha_ = &add_child("mha", std::make_unique<GatedAttention>(options.c_m, options.c_hidden, options.n_heads, rng));
}

Var MsaRowAttention::forward(const Var& m, const Var& z, Tensor* weights_out) const {
  // AF2 Alg. 7
  const int64_t n_heads = options_.n_heads;
  ATTEND_CHECK(m.value().rank() == 3 && m.dim(2) == options_.c_m,
               "msa_row_attention expects m [n_seq, n_res, " << options_.c_m << "], got "
                                                            << shape_to_string(m.shape()));
  const int64_t n_res = m.dim(1);
  ATTEND_CHECK(z.value().rank() == 3 && z.dim(0) == n_res && z.dim(1) == n_res && z.dim(2) == options_.c_z,
               "msa_row_attention expects z [" << n_res << ", " << n_res << ", " << options_.c_z
                                               << "], got " << shape_to_string(z.shape()));
  const Var x = static_cast<const LayerNormModule&>(*layer_norm_m_).forward(m);  // [n_seq, n_res, c_m]
  const Var zn = static_cast<const LayerNormModule&>(*layer_norm_z_).forward(z);  // [n_res, n_res, c_z]
  const Var b = linear_z_->forward(zn);                                           // [n_res, n_res, n_heads]
  const Var bias = ops::reshape(ops::permute(b, {2, 0, 1}), {1, n_heads, n_res, n_res});  // [1, H, n_res, n_res]
  return mha_->forward(x, {bias}, options_.chunk_size, weights_out);              // [n_seq, n_res, c_m]
}

void MsaRowAttention::register_into(Registry& registry) {
  registry.add("msa_row_attention", [](const Json& config) -> std::unique_ptr<Module> {
    return std::make_unique<MsaRowAttention>(MsaRowAttentionOptions::from_json(config));
  });
  registry.document("msa_row_attention", MsaRowAttentionOptions::option_list().docs());
}

}  // namespace attend::bio
