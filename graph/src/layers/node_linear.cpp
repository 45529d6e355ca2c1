#include "attend/graph/layers/node_linear.hpp"

#include "attend/core/error.hpp"
#include "attend/core/init.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/options_json.hpp"
#include "attend/core/random.hpp"
#include "attend/core/registry.hpp"

namespace attend::graph {

NodeLinearOptions NodeLinearOptions::from_json(const Json& c) {
  const std::string me = "node_linear";
  check_option_keys(c, {"in_channels", "out_channels", "bias", "input_dropout", "seed"}, me);
  NodeLinearOptions o;
  o.in_channels = option_required<int64_t>(c, "in_channels", me);
  o.out_channels = option_required<int64_t>(c, "out_channels", me);
  o.bias = option_or(c, "bias", o.bias, me);
  o.input_dropout = option_or(c, "input_dropout", o.input_dropout, me);
  o.seed = option_or(c, "seed", o.seed, me);
  if (o.in_channels <= 0 || o.out_channels <= 0) throw InputError("node_linear: in_channels and out_channels must be positive");
  if (o.input_dropout < 0 || o.input_dropout >= 1) throw InputError("node_linear: input_dropout must be in [0, 1)");
  return o;
}

Json NodeLinearOptions::to_json() const {
  return {{"in_channels", in_channels}, {"out_channels", out_channels}, {"bias", bias},
          {"input_dropout", input_dropout}, {"seed", seed}};
}

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
}

}  // namespace attend::graph
