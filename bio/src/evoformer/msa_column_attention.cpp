#include "attend/bio/evoformer/msa_column_attention.hpp"

#include "attend/core/error.hpp"
#include "attend/core/ops/shape.hpp"
#include "attend/core/options_json.hpp"
#include "attend/core/registry.hpp"
#include "evoformer_common.hpp"

namespace attend::bio {

using evoformer_detail::LayerNormModule;

MsaColumnAttentionOptions MsaColumnAttentionOptions::from_json(const Json& config) {
  const std::string me = "msa_column_attention";
  check_option_keys(config, {"c_m", "c_hidden", "n_heads", "chunk_size", "seed"}, me);
  MsaColumnAttentionOptions o;
  o.c_m = option_required<int64_t>(config, "c_m", me);
  o.c_hidden = option_or(config, "c_hidden", o.c_hidden, me);
  o.n_heads = option_or(config, "n_heads", o.n_heads, me);
  o.chunk_size = option_or(config, "chunk_size", o.chunk_size, me);
  o.seed = option_or(config, "seed", o.seed, me);
  evoformer_detail::require_positive(me, "c_m", o.c_m);
  evoformer_detail::require_positive(me, "c_hidden", o.c_hidden);
  evoformer_detail::require_positive(me, "n_heads", o.n_heads);
  if (o.chunk_size < 0) throw InputError(me + ": option 'chunk_size' must be >= 0");
  return o;
}

Json MsaColumnAttentionOptions::to_json() const {
  return Json{{"c_m", c_m}, {"c_hidden", c_hidden}, {"n_heads", n_heads}, {"chunk_size", chunk_size},
              {"seed", seed}};
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
  const Var mt = ops::permute(m, {1, 0, 2});                                     // [n_res, n_seq, c_m]
  const Var x = static_cast<const LayerNormModule&>(*layer_norm_m_).forward(mt);  // [n_res, n_seq, c_m]
  const Var o = mha_->forward(x, {}, options_.chunk_size);                       // [n_res, n_seq, c_m]
  return ops::permute(o, {1, 0, 2});                                             // [n_seq, n_res, c_m]
}

void MsaColumnAttention::register_into(Registry& registry) {
  registry.add("msa_column_attention", [](const Json& config) -> std::unique_ptr<Module> {
    return std::make_unique<MsaColumnAttention>(MsaColumnAttentionOptions::from_json(config));
  });
}

}  // namespace attend::bio
