#include "attend/graph/layers/node_linear.hpp"

#include "attend/core/error.hpp"
#include "attend/core/init.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/option_list.hpp"
#include "attend/core/random.hpp"
#include "attend/core/registry.hpp"

namespace attend::graph {

const OptionList<NodeLinearOptions>& NodeLinearOptions::option_list() {
  using O = NodeLinearOptions;
  static const OptionList<O> list =
      OptionList<O>("node_linear")
          .required("in_channels", &O::in_channels, "input features", OptionRange::positive())
          .required("out_channels", &O::out_channels, "output features", OptionRange::positive())
          .add("bias", &O::bias, "learned output bias")
          .add("input_dropout", &O::input_dropout, "dropout on the input features (training)", OptionRange::fraction())
          .add("seed", &O::seed, "seed of the initialisation");
  return list;
}

NodeLinearOptions NodeLinearOptions::from_json(const Json& c) { return option_list().from_json(c); }

Json NodeLinearOptions::to_json() const { return option_list().to_json(*this); }

NodeLinear::NodeLinear(NodeLinearOptions o) : options_(o) {
  Rng rng(o.seed);
  weight_ = add_parameter("weight", init::glorot_uniform({o.in_channels, o.out_channels}, o.in_channels, o.out_channels, rng));
  if (o.bias) bias_ = add_parameter("bias", init::zeros({o.out_channels}));
}

Var NodeLinear::forward(const NodeFeatures& x, const GraphContext& /*graph*/, uint64_t seed,
                        AttentionExport* /*attention*/) const {
  const NodeLinearOptions& o = options_;
  ATTEND_CHECK(x.cols() == o.in_channels, "node_linear expects " << o.in_channels << " input features, got " << x.cols());
  const NodeFeatures xd = dropout(x, o.input_dropout, mix64(seed ^ 1), is_training());
  Var out = project(xd, weight_);  // [N, C]
  if (o.bias) out = ops::add(out, bias_);
  return out;
}

void NodeLinear::register_into(Registry& registry) {
  registry.add("node_linear", [](const Json& config) -> std::unique_ptr<Module> {
    return std::make_unique<NodeLinear>(NodeLinearOptions::from_json(config));
  });
  registry.document("node_linear", NodeLinearOptions::option_list().docs());
}

}  // namespace attend::graph
