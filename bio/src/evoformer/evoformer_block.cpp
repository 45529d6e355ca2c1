#include "attend/bio/evoformer/evoformer_block.hpp"

#include "attend/bio/evoformer/shared_dropout.hpp"
#include "attend/core/autodiff.hpp"
#include "attend/core/error.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/random.hpp"
#include "attend/core/recompute.hpp"
#include "attend/core/registry.hpp"
#include "evoformer_common.hpp"

namespace attend::bio {

const OptionList<EvoformerBlockOptions>& EvoformerBlockOptions::option_list() {
  using O = EvoformerBlockOptions;
  const OptionRange positive = OptionRange::positive();
  static const OptionList<O> list =
      OptionList<O>("evoformer_block")
          .required("c_m", &O::c_m, "MSA channels", positive)
          .required("c_z", &O::c_z, "pair channels", positive)
          .add("c_hidden_msa_att", &O::c_hidden_msa_att, "channels per head of the MSA attentions", positive)
          .add("c_hidden_opm", &O::c_hidden_opm, "outer product mean projection channels", positive)
          .add("c_hidden_mul", &O::c_hidden_mul, "triangle multiplication channels", positive)
          .add("c_hidden_pair_att", &O::c_hidden_pair_att, "channels per head of the triangle attentions", positive)
          .add("n_heads_msa", &O::n_heads_msa, "heads of the MSA attentions", positive)
          .add("n_heads_pair", &O::n_heads_pair, "heads of the triangle attentions", positive)
          .add("transition_n", &O::transition_n, "hidden width factor of both transitions", positive)
          .add("msa_dropout", &O::msa_dropout, "row-wise dropout after MSA row attention (training)",
               OptionRange::fraction())
          .add("pair_dropout", &O::pair_dropout, "row- or column-wise dropout after the triangle updates (training)",
               OptionRange::fraction())
          .add("chunk_size", &O::chunk_size, "handed to every attention; 0: automatic", OptionRange::at_least(0.0))
          .add("checkpoint", &O::checkpoint,
               "recompute the intermediates of the outgoing triangle multiplication in the backward pass")
          .add("seed", &O::seed, "seeds the initialisation");
  return list;
}

EvoformerBlock::EvoformerBlock(EvoformerBlockOptions o) : options_(o) {
  Rng rng(o.seed);
  msa_row_ = &add_child("msa_row_attention", std::make_unique<MsaRowAttention>(MsaRowAttentionOptions{
                                                 {o.c_hidden_msa_att, o.n_heads_msa, o.chunk_size, rng.split()}, o.c_m, o.c_z}));
  msa_col_ = &add_child("msa_column_attention", std::make_unique<MsaColumnAttention>(MsaColumnAttentionOptions{
                                                    {o.c_hidden_msa_att, o.n_heads_msa, o.chunk_size, rng.split()}, o.c_m}));
  msa_transition_ = &add_child("msa_transition",
                               std::make_unique<MsaTransition>(MsaTransitionOptions{o.c_m, o.transition_n, rng.split()}));
  outer_product_mean_ = &add_child("outer_product_mean", std::make_unique<OuterProductMean>(OuterProductMeanOptions{
                                                             o.c_m, o.c_z, o.c_hidden_opm, rng.split()}));
  tri_mul_out_ = &add_child("tri_mul_out", std::make_unique<TriangleMultiplication>(
                                               TriangleMultiplicationOptions{o.c_z, o.c_hidden_mul, rng.split()}, true));
  tri_mul_in_ = &add_child("tri_mul_in", std::make_unique<TriangleMultiplication>(
                                             TriangleMultiplicationOptions{o.c_z, o.c_hidden_mul, rng.split()}, false));
  tri_att_start_ = &add_child("tri_att_start", std::make_unique<TriangleAttention>(
                                                   TriangleAttentionOptions{{o.c_hidden_pair_att, o.n_heads_pair,
                                                                             o.chunk_size, rng.split()}, o.c_z},
                                                   true));
  tri_att_end_ = &add_child("tri_att_end", std::make_unique<TriangleAttention>(
                                               TriangleAttentionOptions{{o.c_hidden_pair_att, o.n_heads_pair,
                                                                         o.chunk_size, rng.split()}, o.c_z},
                                               false));
  pair_transition_ = &add_child("pair_transition",
                                std::make_unique<PairTransition>(PairTransitionOptions{o.c_z, o.transition_n, rng.split()}));
}

EvoformerState EvoformerBlock::forward(const Var& m_in, const Var& z_in, uint64_t seed,
                                      TriangleAttentionWeights* triangle_weights) const {
  // AF2 Alg. 6
  const bool training = is_training();
  const float pm = options_.msa_dropout, pz = options_.pair_dropout;
  auto stream = [seed](uint64_t k) { return mix64(seed ^ (0x45766f00ULL + k)); };
  // One module's update; with `checkpoint` the outgoing triangle multiplication's goes
  // through attend::recompute, every other module keeps its intermediates. Since the
  // triangle multiplications' gated output keeps nothing (session 13), the block's peak
  // (n_seq 128, n_res 256, 1 thread) is 1485 MiB with the MSA column attention and transition
  // recomputed; keeping them costs 145 MiB (1630 MiB; 1649 on 2 threads) and saves their
  // forwards (about 100 ms CPU). Keeping the outgoing triangle multiplication as well would
  // cost 90 MiB more (1739 MiB on 2 threads, about 43 % of the PyTorch reference's 4006-4088)
  // for about 75 ms, so `checkpoint` still recomputes it.
  auto update = [this](const Module& module, const RecomputeFn& f, const std::vector<Var>& inputs) {
    if (!options_.checkpoint || &module != tri_mul_out_) return f(inputs);
    std::vector<Var> parameters;
    for (const auto& [name, p] : module.named_parameters()) parameters.push_back(p);
    return recompute(f, inputs, parameters);
  };
  Var m = m_in;  // [n_seq, n_res, c_m]
  Var z = z_in;  // [n_res, n_res, c_z]
  const Var row = update(*msa_row_, [this](const std::vector<Var>& x) { return msa_row_->forward(x[0], x[1]); },
                         {m, z});                                               // [n_seq, n_res, c_m]
  m = add_shared_dropout(m, row, pm, stream(1), training, 0);                  // [n_seq, n_res, c_m]
  auto apply = [&](const auto& module, const Var& x) {
    const auto* mp = &module;  // outlives the tape: a child of this block
    return update(module, [mp](const std::vector<Var>& v) { return mp->forward(v[0]); }, {x});
  };
  m = ops::add(m, apply(*msa_col_, m));                                         // [n_seq, n_res, c_m]
  m = ops::add(m, apply(*msa_transition_, m));                                  // [n_seq, n_res, c_m]
  z = ops::add(z, apply(*outer_product_mean_, m));                              // [n_res, n_res, c_z]
  z = add_shared_dropout(z, apply(*tri_mul_out_, z), pz, stream(2), training, 0);  // [n_res, n_res, c_z]
  z = add_shared_dropout(z, apply(*tri_mul_in_, z), pz, stream(3), training, 0);   // [n_res, n_res, c_z]
  auto triangle = [&](const TriangleAttention& module, const Var& x, Tensor* weights) {
    return weights ? module.forward(x, weights) : apply(module, x);
  };
  z = add_shared_dropout(z, triangle(*tri_att_start_, z, triangle_weights ? &triangle_weights->starting : nullptr),
                         pz, stream(4), training, 0);  // [n_res, n_res, c_z]
  z = add_shared_dropout(z, triangle(*tri_att_end_, z, triangle_weights ? &triangle_weights->ending : nullptr),
                         pz, stream(5), training, 1);  // [n_res, n_res, c_z]
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
  registry.document("evoformer_block", EvoformerBlockOptions::option_list().docs());
}

}  // namespace attend::bio
