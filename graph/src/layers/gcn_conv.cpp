#include "attend/graph/layers/gcn_conv.hpp"

#include "attend/core/error.hpp"
#include "attend/core/init.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/ops/sparse_matmul.hpp"
#include "attend/core/option_list.hpp"
#include "attend/core/random.hpp"
#include "attend/core/registry.hpp"

namespace attend::graph {

const OptionList<GcnOptions>& GcnOptions::option_list() {
  using O = GcnOptions;
  static const OptionList<O> list =
      OptionList<O>("gcn")
          .required("in_channels", &O::in_channels, "input features", OptionRange::positive())
          .required("out_channels", &O::out_channels, "output features", OptionRange::positive())
          .add("add_self_loops", &O::add_self_loops, "one self-loop per node (A + I)")
          .add("normalize", &O::normalize,
               "Kipf & Welling's D^-1/2 (A + I) D^-1/2; false: a plain sum over the neighbours")
          .add("bias", &O::bias, "learned output bias")
          .add("input_dropout", &O::input_dropout, "dropout on the input features (training)", OptionRange::fraction())
          .add("init_gain", &O::init_gain,
               "gain of the Glorot initialisation (its bound times this; sqrt(2) = 1.414 for a ReLU, as the "
               "GNNExplainer authors' GCN)",
               OptionRange::positive())
          .add("seed", &O::seed, "seed of the initialisation");
  return list;
}

GcnOptions GcnOptions::from_json(const Json& c) { return option_list().from_json(c); }

Json GcnOptions::to_json() const { return option_list().to_json(*this); }

GcnConv::GcnConv(GcnOptions o) : options_(o) {
  Rng rng(o.seed);
  Tensor weight = init::glorot_uniform({o.in_channels, o.out_channels}, o.in_channels, o.out_channels, rng);  // [in, C]
  for (float& w : weight) w *= o.init_gain;
  weight_ = add_parameter("weight", std::move(weight));
  if (o.bias) bias_ = add_parameter("bias", init::zeros({o.out_channels}));
}

Var GcnConv::forward(const NodeFeatures& x, const GraphContext& graph, uint64_t seed,
                     AttentionExport* /*attention*/) const {
  // Kipf & Welling 2017, Eq. 2.
  const GcnOptions& o = options_;
  ATTEND_CHECK(x.cols() == o.in_channels, "gcn expects " << o.in_channels << " input features, got " << x.cols());
  const NodeFeatures xd = dropout(x, o.input_dropout, mix64(seed ^ 1), is_training());
  Var h = project(xd, weight_);                                                       // [N, C]
  Var out = ops::sparse_matmul(graph.adjacency(o.add_self_loops, o.normalize), h);  // [N, C]
  if (o.bias) out = ops::add(out, bias_);
  return out;
}

void GcnConv::register_into(Registry& registry) {
  registry.add("gcn", [](const Json& config) -> std::unique_ptr<Module> {
    return std::make_unique<GcnConv>(GcnOptions::from_json(config));
  });
  registry.document("gcn", GcnOptions::option_list().docs());
}

}  // namespace attend::graph
