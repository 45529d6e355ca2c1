#include "attend/graph/layers/gat_conv.hpp"

#include "attend/core/error.hpp"
#include "attend/core/init.hpp"
#include "attend/core/ops/dropout.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/ops/head_dot.hpp"
#include "attend/core/ops/head_mean.hpp"
#include "attend/core/ops/shape.hpp"
#include "attend/core/ops/sparse_attention.hpp"
#include "attend/core/ops/sparse_matmul.hpp"
#include "attend/core/options_json.hpp"
#include "attend/core/random.hpp"
#include "attend/core/registry.hpp"

namespace attend::graph {

GatOptions GatOptions::from_json(const Json& c) {
  const std::string me = "gat";
  check_option_keys(c, {"in_channels", "out_channels", "heads", "concat", "negative_slope", "dropout",
                        "input_dropout", "add_self_loops", "residual", "bias", "input_dropout_per_head",
                        "value_dropout", "attention_bias", "glorot_per_head", "seed"}, me);
  GatOptions o;
  o.in_channels = option_required<int64_t>(c, "in_channels", me);
  o.out_channels = option_required<int64_t>(c, "out_channels", me);
  o.heads = option_or(c, "heads", o.heads, me);
  o.concat = option_or(c, "concat", o.concat, me);
  o.negative_slope = option_or(c, "negative_slope", o.negative_slope, me);
  o.dropout = option_or(c, "dropout", o.dropout, me);
  o.input_dropout = option_or(c, "input_dropout", o.input_dropout, me);
  o.add_self_loops = option_or(c, "add_self_loops", o.add_self_loops, me);
  o.residual = option_or(c, "residual", o.residual, me);
  o.bias = option_or(c, "bias", o.bias, me);
  o.input_dropout_per_head = option_or(c, "input_dropout_per_head", o.input_dropout_per_head, me);
  o.value_dropout = option_or(c, "value_dropout", o.value_dropout, me);
  o.attention_bias = option_or(c, "attention_bias", o.attention_bias, me);
  o.glorot_per_head = option_or(c, "glorot_per_head", o.glorot_per_head, me);
  o.seed = option_or(c, "seed", o.seed, me);
  if (o.in_channels <= 0 || o.out_channels <= 0 || o.heads <= 0) {
    throw InputError("gat: in_channels, out_channels and heads must be positive");
  }
  if (o.dropout < 0 || o.dropout >= 1 || o.input_dropout < 0 || o.input_dropout >= 1 || o.value_dropout < 0 ||
      o.value_dropout >= 1) {
    throw InputError("gat: dropout, input_dropout and value_dropout must be in [0, 1)");
  }
  return o;
}

Json GatOptions::to_json() const {
  return {{"in_channels", in_channels}, {"out_channels", out_channels}, {"heads", heads},
          {"concat", concat}, {"negative_slope", negative_slope}, {"dropout", dropout},
          {"input_dropout", input_dropout}, {"add_self_loops", add_self_loops},
          {"residual", residual}, {"bias", bias}, {"input_dropout_per_head", input_dropout_per_head},
          {"value_dropout", value_dropout}, {"attention_bias", attention_bias},
          {"glorot_per_head", glorot_per_head}, {"seed", seed}};
}

GatConv::GatConv(GatOptions o) : options_(o) {
  Rng rng(o.seed);
  const int64_t hc = o.heads * o.out_channels;
  // Every head's block has the same limit, so per-head initialisation draws the whole
  // matrix with the per-head fans.
  const int64_t w_fan_out = o.glorot_per_head ? o.out_channels : hc;
  const int64_t att_fan_in = o.glorot_per_head ? o.out_channels : o.heads;
  const int64_t att_fan_out = o.glorot_per_head ? 1 : o.out_channels;
  weight_ = add_parameter("weight", init::glorot_uniform({o.in_channels, hc}, o.in_channels, w_fan_out, rng));
  att_src_ = add_parameter("att_src", init::glorot_uniform({o.heads, o.out_channels}, att_fan_in, att_fan_out, rng));
  att_dst_ = add_parameter("att_dst", init::glorot_uniform({o.heads, o.out_channels}, att_fan_in, att_fan_out, rng));
  if (o.residual) {
    res_weight_ = add_parameter("res_weight", init::glorot_uniform({o.in_channels, out_features()},
                                                                    o.in_channels, out_features(), rng));
  }
  if (o.bias) bias_ = add_parameter("bias", init::zeros({out_features()}));
  if (o.attention_bias) {
    att_src_bias_ = add_parameter("att_src_bias", init::zeros({o.heads}));
    att_dst_bias_ = add_parameter("att_dst_bias", init::zeros({o.heads}));
  }
}

int64_t GatConv::out_features() const {
  return options_.concat ? options_.heads * options_.out_channels : options_.out_channels;
}

Var GatConv::forward(const NodeFeatures& x, const GraphContext& graph, uint64_t seed,
                     AttentionExport* attention) const {
  const GatOptions& o = options_;
  ATTEND_CHECK(x.cols() == o.in_channels, "gat expects " << o.in_channels << " input features, got " << x.cols());
  // Velickovic et al. 2018, Eq. 1-5 (with the options of the authors' code).
  const bool per_head = o.input_dropout_per_head && is_training() && o.input_dropout > 0;
  // One shared mask (for the projection, or only for the residual when masks are per head).
  const NodeFeatures xd = per_head && !o.residual ? x : dropout(x, o.input_dropout, mix64(seed ^ 1), is_training());
  const int64_t n = x.rows();
  Var h;  // [N, H, C]
  std::vector<uint64_t> mask_seeds;  // [H] input dropout mask of each head
  if (per_head) {
    for (int64_t k = 0; k < o.heads; ++k) mask_seeds.push_back(mix64(seed ^ (0x100ULL + static_cast<uint64_t>(k))));
  }
  if (per_head && x.is_sparse() && o.heads <= ops::kMaxDropoutBlocks) {  // one pass over x for all heads' masks
    h = ops::reshape(ops::sparse_matmul_block_dropout(x.sparse, weight_, o.input_dropout, mask_seeds),
                     {n, o.heads, o.out_channels});
  } else if (per_head) {
    const std::vector<Var> blocks = ops::split(weight_, std::vector<int64_t>(o.heads, o.out_channels));  // [in, C] each
    std::vector<Var> per_head;
    for (int64_t k = 0; k < o.heads; ++k) {
      per_head.push_back(project(dropout(x, o.input_dropout, mask_seeds[k], true), blocks[k]));  // [N, C]
    }
    h = ops::reshape(ops::concat(per_head), {n, o.heads, o.out_channels});
  } else {
    h = ops::reshape(project(xd, weight_), {n, o.heads, o.out_channels});
  }
  Var s_src = ops::head_dot(h, att_src_);  // [N, H]
  Var s_dst = ops::head_dot(h, att_dst_);  // [N, H]
  if (o.attention_bias) {
    s_src = ops::add(s_src, att_src_bias_);
    s_dst = ops::add(s_dst, att_dst_bias_);
  }
  const Var values = ops::dropout(h, o.value_dropout, mix64(seed ^ 3), is_training());  // [N, H, C]
  ops::SparseAttentionOptions sa;
  sa.negative_slope = o.negative_slope;
  sa.dropout = o.dropout;
  sa.seed = mix64(seed ^ 2);
  sa.training = is_training();
  const GraphView& view = graph.view(o.add_self_loops);
  Tensor* weights = attention ? &attention->weights : nullptr;
  if (attention) attention->view = &view;
  Var out = ops::sparse_attention(view.csr, ops::SparseScores::gat(s_src, s_dst), values, sa, weights);  // [N, H, C]
  out = o.concat ? ops::reshape(out, {n, o.heads * o.out_channels}) : ops::head_mean(out);  // [N, out]
  if (o.residual) out = ops::add(out, project(xd, res_weight_));
  if (o.bias) out = ops::add(out, bias_);
  return out;
}

void GatConv::register_into(Registry& registry) {
  registry.add("gat", [](const Json& config) -> std::unique_ptr<Module> {
    return std::make_unique<GatConv>(GatOptions::from_json(config));
  });
}

}  // namespace attend::graph
