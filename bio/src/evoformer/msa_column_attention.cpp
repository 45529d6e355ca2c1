#include "attend/bio/evoformer/msa_column_attention.hpp"

#include "attend/core/error.hpp"
#include "attend/core/registry.hpp"
#include "evoformer_common.hpp"

namespace attend::bio {

using evoformer_detail::LayerNormModule;

const OptionList<MsaColumnAttentionOptions>& MsaColumnAttentionOptions::option_list() {
  using O = MsaColumnAttentionOptions;
  static const OptionList<O> list =
      OptionList<O>("msa_column_attention")
          .required("c_m", &O::c_m, "MSA channels", OptionRange::positive())
          .include(EvoformerAttentionOptions<8>::option_list());
  return list;
}

MsaColumnAttention::MsaColumnAttention(MsaColumnAttentionOptions options) : options_(options) {
  ATTEND_CHECK(options.c_m > 0 && options.c_hidden > 0 && options.n_heads > 0,
               "msa_column_attention: c_m, c_hidden and n_heads must be positive");
  Rng rng(options.seed);
  layer_norm_m_ = &add_child("layer_norm_m", std::make_unique<LayerNormModule>(options.c_m));
  mha_ = &add_child("mha", std::make_unique<GatedAttention>(options.c_m, options.c_hidden, options.n_heads, rng));
}

Var MsaColumnAttention::forward(const Var& m) const {
  // AF2 Alg. 8
  ATTEND_CHECK(m.value().rank() == 3 && m.dim(2) == options_.c_m,
               "msa_column_attention expects m [n_seq, n_res, " << options_.c_m << "], got "
                                                               << shape_to_string(m.shape()));
  // Each column (residue) attends over its sequences: the batch is axis 1, read in place.
  const Var x = static_cast<const LayerNormModule&>(*layer_norm_m_).forward(m);  // [n_seq, n_res, c_m]
  return mha_->forward(x, {}, options_.chunk_size, nullptr, 1);                 // [n_seq, n_res, c_m]
}

void MsaColumnAttention::register_into(Registry& registry) {
  registry.add("msa_column_attention", [](const Json& config) -> std::unique_ptr<Module> {
    return std::make_unique<MsaColumnAttention>(MsaColumnAttentionOptions::from_json(config));
  });
  registry.document("msa_column_attention", MsaColumnAttentionOptions::option_list().docs());
}

}  // namespace attend::bio
