#include "attend/graph/layers/gatv2_conv.hpp"

#include "attend/core/error.hpp"
#include "attend/core/init.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/ops/head_mean.hpp"
#include "attend/core/ops/shape.hpp"
#include "attend/core/ops/sparse_attention.hpp"
#include "attend/core/options_json.hpp"
#include "attend/core/random.hpp"
#include "attend/core/registry.hpp"

namespace attend::graph {

GatV2Options GatV2Options::from_json(const Json& c) {
  const std::string me = "gatv2";
  check_option_keys(c, {"in_channels", "out_channels", "heads", "concat", "negative_slope", "dropout",
                        "input_dropout", "add_self_loops", "residual", "bias", "share_weights", "seed"},
                    me);
  GatV2Options o;
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
  o.share_weights = option_or(c, "share_weights", o.share_weights, me);
  o.seed = option_or(c, "seed", o.seed, me);
  if (o.in_channels <= 0 || o.out_channels <= 0 || o.heads <= 0) {
    throw InputError("gatv2: in_channels, out_channels and heads must be positive");
  }
  if (o.dropout < 0 || o.dropout >= 1 || o.input_dropout < 0 || o.input_dropout >= 1) {
    throw InputError("gatv2: dropout and input_dropout must be in [0, 1)");
  }
  return o;
}

Json GatV2Options::to_json() const {
  return {{"in_channels", in_channels}, {"out_channels", out_channels}, {"heads", heads},
          {"concat", concat}, {"negative_slope", negative_slope}, {"dropout", dropout},
          {"input_dropout", input_dropout}, {"add_self_loops", add_self_loops},
          {"residual", residual}, {"bias", bias}, {"share_weights", share_weights}, {"seed", seed}};
}

GatV2Conv::GatV2Conv(GatV2Options o) : options_(o) {
  Rng rng(o.seed);
  const int64_t hc = o.heads * o.out_channels;
  if (o.share_weights) {
    weight_src_ = add_parameter("weight", init::glorot_uniform({o.in_channels, hc}, o.in_channels, hc, rng));
    weight_dst_ = weight_src_;
  } else {
    weight_src_ = add_parameter("weight_src", init::glorot_uniform({o.in_channels, hc}, o.in_channels, hc, rng));
    weight_dst_ = add_parameter("weight_dst", init::glorot_uniform({o.in_channels, hc}, o.in_channels, hc, rng));
  }
  att_ = add_parameter("att", init::glorot_uniform({o.heads, o.out_channels}, o.heads, o.out_channels, rng));
  if (o.residual) {
    res_weight_ = add_parameter("res_weight", init::glorot_uniform({o.in_channels, out_features()},
                                                                    o.in_channels, out_features(), rng));
  }
  if (o.bias) bias_ = add_parameter("bias", init::zeros({out_features()}));
}

int64_t GatV2Conv::out_features() const {
  return options_.concat ? options_.heads * options_.out_channels : options_.out_channels;
}

Var GatV2Conv::forward(const NodeFeatures& x, const GraphContext& graph, uint64_t seed,
                       AttentionExport* attention) const {
  // Brody et al. 2022, Eq. 7 (GATv2 scoring), multi-head as in GAT.
  const GatV2Options& o = options_;
  ATTEND_CHECK(x.cols() == o.in_channels, "gatv2 expects " << o.in_channels << " input features, got " << x.cols());
  const NodeFeatures xd = dropout(x, o.input_dropout, mix64(seed ^ 1), is_training());
  const int64_t n = x.rows();
  Var x_src = ops::reshape(project(xd, weight_src_), {n, o.heads, o.out_channels});  // [N, H, C]
  Var x_dst = o.share_weights ? x_src
                              : ops::reshape(project(xd, weight_dst_), {n, o.heads, o.out_channels});  // [N, H, C]
  ops::SparseAttentionOptions sa;
  sa.negative_slope = o.negative_slope;
  sa.dropout = o.dropout;
  sa.seed = mix64(seed ^ 2);
  sa.training = is_training();
  const GraphView& view = graph.view(o.add_self_loops);
  Tensor* weights = attention ? &attention->weights : nullptr;
  if (attention) attention->view = &view;
  Var out = ops::sparse_attention(view.csr, ops::SparseScores::gatv2(x_src, x_dst, att_), x_src, sa,
                                  weights);  // [N, H, C]
  out = o.concat ? ops::reshape(out, {n, o.heads * o.out_channels}) : ops::head_mean(out);  // [N, out]
  if (o.residual) out = ops::add(out, project(xd, res_weight_));
  if (o.bias) out = ops::add(out, bias_);
  return out;
}

void GatV2Conv::register_into(Registry& registry) {
  registry.add("gatv2", [](const Json& config) -> std::unique_ptr<Module> {
    return std::make_unique<GatV2Conv>(GatV2Options::from_json(config));
  });
}

}  // namespace attend::graph
