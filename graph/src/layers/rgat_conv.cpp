#include "attend/graph/layers/rgat_conv.hpp"

#include <numeric>

#include "attend/core/error.hpp"
#include "attend/core/init.hpp"
#include "attend/core/ops/activation.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/ops/head_dot.hpp"
#include "attend/core/ops/indexing.hpp"
#include "attend/core/ops/shape.hpp"
#include "attend/core/ops/sparse_attention.hpp"
#include "attend/graph/layers/attention_layer.hpp"
#include "attend/core/ops/sparse_matmul.hpp"
#include "attend/core/option_list.hpp"
#include "attend/core/random.hpp"
#include "attend/core/registry.hpp"

namespace attend::graph {

const OptionList<RgatOptions>& RgatOptions::option_list() {
  using O = RgatOptions;
  static const OptionList<O> list =
      OptionList<O>("rgat")
          .required("in_channels", &O::in_channels, "input features", OptionRange::positive())
          .required("out_channels", &O::out_channels, "features per head", OptionRange::positive())
          .required("num_relations", &O::num_relations, "relation types R (\"auto\": the graph's)", OptionRange::positive())
          .add("num_bases", &O::num_bases, "bases of the weight decomposition; 0: a full weight per relation",
               OptionRange::at_least(0))
          .include(AttentionHeadsOptions::option_list())
          .add("negative_slope", &O::negative_slope, "LeakyReLU slope of the attention logits")
          .add("add_self_loops", &O::add_self_loops, "attend over the graph with one self-loop per node (its own relation)")
          .add("bias", &O::bias, "learned output bias")
          .choice("attention_mechanism", &O::attention_mechanism,
                  {{"across-relation", O::Mechanism::kAcrossRelation}, {"within-relation", O::Mechanism::kWithinRelation}},
                  "one softmax over all in-edges of a node (ARGAT), or one per relation, summed (WIRGAT)")
          .choice("attention_mode", &O::attention_mode,
                  {{"additive-self-attention", O::Mode::kAdditive},
                   {"multiplicative-self-attention", O::Mode::kMultiplicative}},
                  "e = LeakyReLU(q_i + k_j), or e = q_i k_j")
          .choice("attention_init", &O::attention_init, {{"glorot", O::Init::kGlorot}, {"zeros", O::Init::kZeros}},
                  "not in PyG: zeros starts the logits at zero (a within-relation layer starts as R-GCN)")
          .add("seed", &O::seed, "seed of the initialisation");
  return list;
}

RgatOptions RgatOptions::from_json(const Json& c) { return option_list().from_json(c); }

Json RgatOptions::to_json() const { return option_list().to_json(*this); }

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
  if (o.attention_init == RgatOptions::Init::kZeros) {  // zero logits: uniform attention at the start
    att_dst = init::zeros({o.heads, o.out_channels});
    if (o.attention_mode == RgatOptions::Mode::kAdditive) att_src = init::zeros({o.heads, o.out_channels});
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
  Var logits = o.attention_mode == RgatOptions::Mode::kAdditive ? ops::leaky_relu(ops::add(q, k), o.negative_slope)
                                                              : ops::mul(q, k);  // [E, H]
  const ops::SparseAttentionOptions sa = layer_attention_options(o.dropout, seed, is_training());
  Tensor* weights = attention_weights_out(attention, view);
  Var out;
  if (o.attention_mechanism == RgatOptions::Mechanism::kWithinRelation) {
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
  return finish_attention_layer(out, o.concat, Var(), bias_);
}

void RgatConv::register_into(Registry& registry) {
  registry.add("rgat", [](const Json& config) -> std::unique_ptr<Module> {
    return std::make_unique<RgatConv>(RgatOptions::from_json(config));
  });
  registry.document("rgat", RgatOptions::option_list().docs());
}

}  // namespace attend::graph
