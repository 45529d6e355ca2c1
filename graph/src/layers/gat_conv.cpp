#include "attend/graph/layers/gat_conv.hpp"

#include "attend/core/error.hpp"
#include "attend/core/init.hpp"
#include "attend/core/ops/dropout.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/ops/head_dot.hpp"
#include "attend/core/ops/shape.hpp"
#include "attend/core/ops/sparse_attention.hpp"
#include "attend/graph/layers/attention_layer.hpp"
#include "attend/core/ops/sparse_matmul.hpp"
#include "attend/core/option_list.hpp"
#include "attend/core/random.hpp"
#include "attend/core/registry.hpp"

namespace attend::graph {

const OptionList<GatOptions>& GatOptions::option_list() {
  using O = GatOptions;
  static const OptionList<O> list =
      OptionList<O>("gat")
          .required("in_channels", &O::in_channels, "input features", OptionRange::positive())
          .required("out_channels", &O::out_channels, "features per head", OptionRange::positive())
          .include(AttentionEndingOptions::option_list())
          .add("negative_slope", &O::negative_slope, "LeakyReLU slope of the attention scores")
          .add("add_self_loops", &O::add_self_loops, "attend over the graph with one self-loop per node")
          .add("input_dropout_per_head", &O::input_dropout_per_head,
               "not in PyG (the GAT authors' code): each head draws its own input dropout mask")
          .add("value_dropout", &O::value_dropout,
               "not in PyG (the authors' code): dropout on W x of the messages, before aggregation",
               OptionRange::fraction())
          .add("attention_bias", &O::attention_bias,
               "not in PyG (the authors' code): a learned bias per head on each attention term")
          .add("glorot_per_head", &O::glorot_per_head,
               "not in PyG (the authors' code): initialise each head's W and attention vectors on their own")
          .add("seed", &O::seed, "seed of the initialisation");
  return list;
}

GatOptions GatOptions::from_json(const Json& c) { return option_list().from_json(c); }

Json GatOptions::to_json() const { return option_list().to_json(*this); }

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
  const GraphView& view = graph.view(o.add_self_loops);
  const Var out = ops::sparse_attention(view.csr, ops::SparseScores::gat(s_src, s_dst), values,
                                        layer_attention_options(o.dropout, seed, is_training(), o.negative_slope),
                                        attention_weights_out(attention, view));  // [N, H, C]
  return finish_attention_layer(out, o.concat, o.residual ? project(xd, res_weight_) : Var(), bias_);
}

void GatConv::register_into(Registry& registry) {
  registry.add("gat", [](const Json& config) -> std::unique_ptr<Module> {
    return std::make_unique<GatConv>(GatOptions::from_json(config));
  });
  registry.document("gat", GatOptions::option_list().docs());
}

}  // namespace attend::graph
