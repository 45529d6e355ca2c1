#include "attend/bio/evoformer/evoformer_block.hpp"

#include "attend/bio/evoformer/shared_dropout.hpp"
#include "attend/core/autodiff.hpp"
#include "attend/core/error.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/options_json.hpp"
#include "attend/core/random.hpp"
#include "attend/core/recompute.hpp"
#include "attend/core/registry.hpp"
#include "evoformer_common.hpp"

namespace attend::bio {

EvoformerBlockOptions EvoformerBlockOptions::from_json(const Json& config) {
  const std::string me = "evoformer_block";
  check_option_keys(config,
                    {"c_m", "c_z", "c_hidden_msa_att", "c_hidden_opm", "c_hidden_mul", "c_hidden_pair_att",
                     "n_heads_msa", "n_heads_pair", "transition_n", "msa_dropout", "pair_dropout", "chunk_size",
                     "checkpoint", "seed"},
                    me);
  EvoformerBlockOptions o;
  o.c_m = option_required<int64_t>(config, "c_m", me);
  o.c_z = option_required<int64_t>(config, "c_z", me);
  o.c_hidden_msa_att = option_or(config, "c_hidden_msa_att", o.c_hidden_msa_att, me);
  o.c_hidden_opm = option_or(config, "c_hidden_opm", o.c_hidden_opm, me);
  o.c_hidden_mul = option_or(config, "c_hidden_mul", o.c_hidden_mul, me);
  o.c_hidden_pair_att = option_or(config, "c_hidden_pair_att", o.c_hidden_pair_att, me);
  o.n_heads_msa = option_or(config, "n_heads_msa", o.n_heads_msa, me);
  o.n_heads_pair = option_or(config, "n_heads_pair", o.n_heads_pair, me);
  o.transition_n = option_or(config, "transition_n", o.transition_n, me);
  o.msa_dropout = option_or(config, "msa_dropout", o.msa_dropout, me);
  o.pair_dropout = option_or(config, "pair_dropout", o.pair_dropout, me);
  o.chunk_size = option_or(config, "chunk_size", o.chunk_size, me);
  o.checkpoint = option_or(config, "checkpoint", o.checkpoint, me);
  o.seed = option_or(config, "seed", o.seed, me);
  using evoformer_detail::require_positive;
  require_positive(me, "c_m", o.c_m);
  require_positive(me, "c_z", o.c_z);
  require_positive(me, "c_hidden_msa_att", o.c_hidden_msa_att);
  require_positive(me, "c_hidden_opm", o.c_hidden_opm);
  require_positive(me, "c_hidden_mul", o.c_hidden_mul);
  require_positive(me, "c_hidden_pair_att", o.c_hidden_pair_att);
  require_positive(me, "n_heads_msa", o.n_heads_msa);
  require_positive(me, "n_heads_pair", o.n_heads_pair);
  require_positive(me, "transition_n", o.transition_n);
  if (o.msa_dropout < 0 || o.msa_dropout >= 1 || o.pair_dropout < 0 || o.pair_dropout >= 1) {
    throw InputError(me + ": msa_dropout and pair_dropout must be in [0, 1)");
  }
  if (o.chunk_size < 0) throw InputError(me + ": option 'chunk_size' must be >= 0");
  return o;
}

Json EvoformerBlockOptions::to_json() const {
  return Json{{"c_m", c_m}, {"c_z", c_z}, {"c_hidden_msa_att", c_hidden_msa_att},
              {"c_hidden_opm", c_hidden_opm}, {"c_hidden_mul", c_hidden_mul},
              {"c_hidden_pair_att", c_hidden_pair_att}, {"n_heads_msa", n_heads_msa},
              {"n_heads_pair", n_heads_pair}, {"transition_n", transition_n},
              {"msa_dropout", msa_dropout}, {"pair_dropout", pair_dropout},
              {"chunk_size", chunk_size}, {"checkpoint", checkpoint}, {"seed", seed}};
}

EvoformerBlock::EvoformerBlock(EvoformerBlockOptions o) : options_(o) {
  Rng rng(o.seed);
  msa_row_ = &add_child("msa_row_attention", std::make_unique<MsaRowAttention>(MsaRowAttentionOptions{
                                                 o.c_m, o.c_z, o.c_hidden_msa_att, o.n_heads_msa, o.chunk_size, rng.split()}));
  msa_col_ = &add_child("msa_column_attention", std::make_unique<MsaColumnAttention>(MsaColumnAttentionOptions{
                                                    o.c_m, o.c_hidden_msa_att, o.n_heads_msa, o.chunk_size, rng.split()}));
  msa_transition_ = &add_child("msa_transition",
                               std::make_unique<MsaTransition>(MsaTransitionOptions{o.c_m, o.transition_n, rng.split()}));
  outer_product_mean_ = &add_child("outer_product_mean", std::make_unique<OuterProductMean>(OuterProductMeanOptions{
                                                             o.c_m, o.c_z, o.c_hidden_opm, rng.split()}));
  tri_mul_out_ = &add_child("tri_mul_out", std::make_unique<TriangleMultiplication>(
                                               TriangleMultiplicationOptions{o.c_z, o.c_hidden_mul, rng.split()}, true));
  tri_mul_in_ = &add_child("tri_mul_in", std::make_unique<TriangleMultiplication>(
                                             TriangleMultiplicationOptions{o.c_z, o.c_hidden_mul, rng.split()}, false));
  tri_att_start_ = &add_child("tri_att_start", std::make_unique<TriangleAttention>(
                                                   TriangleAttentionOptions{o.c_z, o.c_hidden_pair_att, o.n_heads_pair,
                                                                            o.chunk_size, rng.split()},
                                                   true));
  tri_att_end_ = &add_child("tri_att_end", std::make_unique<TriangleAttention>(
                                               TriangleAttentionOptions{o.c_z, o.c_hidden_pair_att, o.n_heads_pair,
                                                                        o.chunk_size, rng.split()},
                                               false));
  pair_transition_ = &add_child("pair_transition",
                                std::make_unique<PairTransition>(PairTransitionOptions{o.c_z, o.transition_n, rng.split()}));
}

EvoformerState EvoformerBlock::forward(const Var& m_in, const Var& z_in, uint64_t seed) const {
  // AF2 Alg. 6
  const bool training = is_training();
  const float pm = options_.msa_dropout, pz = options_.pair_dropout;
  auto stream = [seed](uint64_t k) { return mix64(seed ^ (0x45766f00ULL + k)); };
  // One module's update, through attend::recompute when checkpointing.
  auto update = [this](const Module& module, const RecomputeFn& f, const std::vector<Var>& inputs) {
    if (!options_.checkpoint) return f(inputs);
    std::vector<Var> parameters;
    for (const auto& [name, p] : module.named_parameters()) parameters.push_back(p);
    return recompute(f, inputs, parameters);
  };
  Var m = m_in;  // [n_seq, n_res, c_m]
  Var z = z_in;  // [n_res, n_res, c_z]
  const Var row = update(*msa_row_, [this](const std::vector<Var>& x) { return msa_row_->forward(x[0], x[1]); },
                         {m, z});                                               // [n_seq, n_res, c_m]
  m = ops::add(m, shared_dropout(row, pm, stream(1), training, 0));            // [n_seq, n_res, c_m]
  auto apply = [&](const auto& module, const Var& x) {
    const auto* mp = &module;  // outlives the tape: a child of this block
    return update(module, [mp](const std::vector<Var>& v) { return mp->forward(v[0]); }, {x});
  };
  m = ops::add(m, apply(*msa_col_, m));                                         // [n_seq, n_res, c_m]
  m = ops::add(m, apply(*msa_transition_, m));                                  // [n_seq, n_res, c_m]
  z = ops::add(z, apply(*outer_product_mean_, m));                              // [n_res, n_res, c_z]
  z = ops::add(z, shared_dropout(apply(*tri_mul_out_, z), pz, stream(2), training, 0));    // [n_res, n_res, c_z]
  z = ops::add(z, shared_dropout(apply(*tri_mul_in_, z), pz, stream(3), training, 0));     // [n_res, n_res, c_z]
  z = ops::add(z, shared_dropout(apply(*tri_att_start_, z), pz, stream(4), training, 0));  // [n_res, n_res, c_z]
  z = ops::add(z, shared_dropout(apply(*tri_att_end_, z), pz, stream(5), training, 1));    // [n_res, n_res, c_z]
  z = ops::add(z, apply(*pair_transition_, z));                                 // [n_res, n_res, c_z]
  return EvoformerState{m, z};
}

Tensor EvoformerBlock::msa_row_attention_weights(const Var& m, const Var& z) const {
  NoGradGuard no_grad;
  Tensor weights;  // [n_seq, H, n_res, n_res]
  msa_row_->forward(m, z, &weights);
  return weights;
}

void EvoformerBlock::register_into(Registry& registry) {
  registry.add("evoformer_block", [](const Json& config) -> std::unique_ptr<Module> {
    return std::make_unique<EvoformerBlock>(EvoformerBlockOptions::from_json(config));
  });
}

}  // namespace attend::bio
