#include "attend/graph/layers/gatv2_conv.hpp"

#include "attend/core/error.hpp"
#include "attend/core/init.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/ops/shape.hpp"
#include "attend/core/ops/sparse_attention.hpp"
#include "attend/graph/layers/attention_layer.hpp"
#include "attend/core/option_list.hpp"
#include "attend/core/random.hpp"
#include "attend/core/registry.hpp"

namespace attend::graph {

const OptionList<GatV2Options>& GatV2Options::option_list() {
  using O = GatV2Options;
  static const OptionList<O> list =
      OptionList<O>("gatv2")
          .required("in_channels", &O::in_channels, "input features", OptionRange::positive())
          .required("out_channels", &O::out_channels, "features per head", OptionRange::positive())
          .include(AttentionEndingOptions::option_list())
          .add("negative_slope", &O::negative_slope, "LeakyReLU slope inside the attention scores")
          .add("add_self_loops", &O::add_self_loops, "attend over the graph with one self-loop per node")
          .add("share_weights", &O::share_weights, "one projection for sources and destinations (W_src = W_dst)")
          .add("seed", &O::seed, "seed of the initialisation");
  return list;
}

GatV2Options GatV2Options::from_json(const Json& c) { return option_list().from_json(c); }

Json GatV2Options::to_json() const { return option_list().to_json(*this); }

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
  const GraphView& view = graph.view(o.add_self_loops);
  const Var out = ops::sparse_attention(view.csr, ops::SparseScores::gatv2(x_src, x_dst, att_), x_src,
                                        layer_attention_options(o.dropout, seed, is_training(), o.negative_slope),
                                        attention_weights_out(attention, view));  // [N, H, C]
  return finish_attention_layer(out, o.concat, o.residual ? project(xd, res_weight_) : Var(), bias_);
}

void GatV2Conv::register_into(Registry& registry) {
  registry.add("gatv2", [](const Json& config) -> std::unique_ptr<Module> {
    return std::make_unique<GatV2Conv>(GatV2Options::from_json(config));
  });
  registry.document("gatv2", GatV2Options::option_list().docs());
}

}  // namespace attend::graph
