#include "attend/graph/layers/rgat_conv.hpp"

#include <numeric>

#include "attend/core/error.hpp"
#include "attend/core/init.hpp"
#include "attend/core/ops/activation.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/ops/head_dot.hpp"
#include "attend/core/ops/head_mean.hpp"
#include "attend/core/ops/indexing.hpp"
#include "attend/core/ops/shape.hpp"
#include "attend/core/ops/sparse_attention.hpp"
#include "attend/core/ops/sparse_matmul.hpp"
#include "attend/core/options_json.hpp"
#include "attend/core/random.hpp"
#include "attend/core/registry.hpp"

namespace attend::graph {

RgatOptions RgatOptions::from_json(const Json& c) {
  const std::string me = "rgat";
  check_option_keys(c, {"in_channels", "out_channels", "num_relations", "num_bases", "heads", "concat",
                        "negative_slope", "dropout", "input_dropout", "add_self_loops", "bias",
                        "attention_mechanism", "attention_mode", "attention_init", "seed"},
                    me);
  RgatOptions o;
  o.in_channels = option_required<int64_t>(c, "in_channels", me);
  o.out_channels = option_required<int64_t>(c, "out_channels", me);
  o.num_relations = option_required<int64_t>(c, "num_relations", me);
  if (!(c.contains("num_bases") && c.at("num_bases").is_null())) {  // PyG: None = no decomposition
    o.num_bases = option_or(c, "num_bases", o.num_bases, me);
  }
  o.heads = option_or(c, "heads", o.heads, me);
  o.concat = option_or(c, "concat", o.concat, me);
  o.negative_slope = option_or(c, "negative_slope", o.negative_slope, me);
  o.dropout = option_or(c, "dropout", o.dropout, me);
  o.input_dropout = option_or(c, "input_dropout", o.input_dropout, me);
  o.add_self_loops = option_or(c, "add_self_loops", o.add_self_loops, me);
  o.bias = option_or(c, "bias", o.bias, me);
  o.attention_mechanism = option_or(c, "attention_mechanism", o.attention_mechanism, me);
  o.attention_mode = option_or(c, "attention_mode", o.attention_mode, me);
  o.attention_init = option_or(c, "attention_init", o.attention_init, me);
  o.seed = option_or(c, "seed", o.seed, me);
  if (o.in_channels <= 0 || o.out_channels <= 0 || o.num_relations <= 0 || o.heads <= 0 || o.num_bases < 0) {
    throw InputError("rgat: in_channels, out_channels, num_relations and heads must be positive, num_bases >= 0");
  }
  if (o.dropout < 0 || o.dropout >= 1 || o.input_dropout < 0 || o.input_dropout >= 1) {
    throw InputError("rgat: dropout and input_dropout must be in [0, 1)");
  }
  if (o.attention_mechanism != "across-relation" && o.attention_mechanism != "within-relation") {
    throw InputError("rgat: attention_mechanism must be \"across-relation\" or \"within-relation\", got \"" +
                     o.attention_mechanism + "\"");
  }
  if (o.attention_mode != "additive-self-attention" && o.attention_mode != "multiplicative-self-attention") {
    throw InputError("rgat: attention_mode must be \"additive-self-attention\" or "
                     "\"multiplicative-self-attention\", got \"" + o.attention_mode + "\"");
  }
  if (o.attention_init != "glorot" && o.attention_init != "zeros") {
    throw InputError("rgat: attention_init must be \"glorot\" or \"zeros\", got \"" + o.attention_init + "\"");
  }
  return o;
}

Json RgatOptions::to_json() const {
  return {{"in_channels", in_channels}, {"out_channels", out_channels}, {"num_relations", num_relations},
          {"num_bases", num_bases}, {"heads", heads}, {"concat", concat}, {"negative_slope", negative_slope},
          {"dropout", dropout}, {"input_dropout", input_dropout}, {"add_self_loops", add_self_loops},
          {"bias", bias}, {"attention_mechanism", attention_mechanism}, {"attention_mode", attention_mode},
          {"attention_init", attention_init}, {"seed", seed}};
}

RgatConv::RgatConv(RgatOptions o) : options_(o) {
  Rng rng(o.seed);
  const int64_t hc = o.heads * o.out_channels;
  weights_ = RelationWeights{o.in_channels, hc, o.num_relations, o.num_bases, {}, {}, {}};
  auto init = RelationWeights::initial(o.in_channels, hc, o.num_relations, o.num_bases, rng);
  if (o.num_bases == 0) {
    weights_.weight = add_parameter("weight", std::move(init[0]));
  } else {
    weights_.basis = add_parameter("basis", std::move(init[0]));
    weights_.comp = add_parameter("comp", std::move(init[1]));
  }
  Tensor att_src = init::glorot_uniform({o.heads, o.out_channels}, o.heads, o.out_channels, rng);
  Tensor att_dst = init::glorot_uniform({o.heads, o.out_channels}, o.heads, o.out_channels, rng);
  if (o.attention_init == "zeros") {  // zero logits: uniform attention at the start
    att_dst = init::zeros({o.heads, o.out_channels});
    if (o.attention_mode == "additive-self-attention") att_src = init::zeros({o.heads, o.out_channels});
  }
  att_src_ = add_parameter("att_src", std::move(att_src));
  att_dst_ = add_parameter("att_dst", std::move(att_dst));
  if (o.bias) bias_ = add_parameter("bias", init::zeros({out_features()}));
}

int64_t RgatConv::out_features() const {
  return options_.concat ? options_.heads * options_.out_channels : options_.out_channels;
}

Var RgatConv::forward(const NodeFeatures& x, const GraphContext& graph, uint64_t seed,
                      AttentionExport* attention) const {
  // Busbridge et al. 2019, Eq. 3-6 (WIRGAT or ARGAT, additive or multiplicative logits).
  const RgatOptions& o = options_;
  ATTEND_CHECK(x.cols() == o.in_channels, "rgat expects " << o.in_channels << " input features, got " << x.cols());
  const NodeFeatures xd = dropout(x, o.input_dropout, mix64(seed ^ 1), is_training());
  const int64_t n = x.rows(), heads = o.heads, c = o.out_channels;
  const GraphView& view = graph.view(o.add_self_loops);
  const auto index = graph.relational_index(o.add_self_loops, o.num_relations, true);
  const int64_t n_slots = index->slots->size();  // >= n
  Var g = ops::reshape(weights_.project_slots(xd, index->slots), {n_slots, heads, c});  // [S, H, C]
  Var s_src = ops::head_dot(g, att_src_);  // [S, H]
  Var s_dst = ops::head_dot(g, att_dst_);  // [S, H]
  Var k = ops::gather_rows(s_src, index->src_slot);  // [E, H]
  Var q = ops::gather_rows(s_dst, index->dst_slot);  // [E, H]
  Var logits = o.attention_mode == "additive-self-attention" ? ops::leaky_relu(ops::add(q, k), o.negative_slope)
                                                              : ops::mul(q, k);  // [E, H]
  ops::SparseAttentionOptions sa;
  sa.dropout = o.dropout;
  sa.seed = mix64(seed ^ 2);
  sa.training = is_training();
  Tensor* weights = attention ? &attention->weights : nullptr;
  if (attention) attention->view = &view;
  Var out;
  if (o.attention_mechanism == "within-relation") {
    Var per_slot = ops::sparse_attention(index->within_csr, ops::SparseScores::precomputed(logits), g, sa,
                                         weights);  // [S, H, C]: one softmax per (node, relation)
    out = ops::reshape(ops::sparse_matmul(index->slot_sum, ops::reshape(per_slot, {n_slots, heads * c})),
                       {n, heads, c});  // [N, H, C]
  } else {
    Var all = ops::sparse_attention(index->csr, ops::SparseScores::precomputed(logits), g, sa, weights);  // [S, H, C]
    std::vector<int64_t> nodes(n);
    std::iota(nodes.begin(), nodes.end(), int64_t{0});
    out = ops::gather_rows(all, nodes);  // [N, H, C]: rows >= N of `all` have no in-edges
  }
  out = o.concat ? ops::reshape(out, {n, heads * c}) : ops::head_mean(out);  // [N, out]
  if (o.bias) out = ops::add(out, bias_);
  return out;
}

void RgatConv::register_into(Registry& registry) {
  registry.add("rgat", [](const Json& config) -> std::unique_ptr<Module> {
    return std::make_unique<RgatConv>(RgatOptions::from_json(config));
  });
}

}  // namespace attend::graph
