#include "attend/graph/layers/rgcn_conv.hpp"

#include "attend/core/error.hpp"
#include "attend/core/init.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/ops/sparse_matmul.hpp"
#include "attend/core/option_list.hpp"
#include "attend/core/random.hpp"
#include "attend/core/registry.hpp"

namespace attend::graph {

const OptionList<RgcnOptions>& RgcnOptions::option_list() {
  using O = RgcnOptions;
  static const OptionList<O> list =
      OptionList<O>("rgcn")
          .required("in_channels", &O::in_channels, "input features", OptionRange::positive())
          .required("out_channels", &O::out_channels, "output features", OptionRange::positive())
          .required("num_relations", &O::num_relations, "relation types R (\"auto\": the graph's)", OptionRange::positive())
          .add("num_bases", &O::num_bases, "bases of the weight decomposition; 0: a full weight per relation",
               OptionRange::at_least(0))
          .add("root_weight", &O::root_weight, "add the self-connection W_0 x_i")
          .add("bias", &O::bias, "learned output bias")
          .add("input_dropout", &O::input_dropout, "dropout on the input features (training)", OptionRange::fraction())
          .add("seed", &O::seed, "seed of the initialisation");
  return list;
}

RgcnOptions RgcnOptions::from_json(const Json& c) { return option_list().from_json(c); }

Json RgcnOptions::to_json() const { return option_list().to_json(*this); }

RgcnConv::RgcnConv(RgcnOptions o) : options_(o) {
  Rng rng(o.seed);
  weights_ = RelationWeights{o.in_channels, o.out_channels, o.num_relations, o.num_bases, {}, {}, {}};
  auto init = RelationWeights::initial(o.in_channels, o.out_channels, o.num_relations, o.num_bases, rng);
  if (o.num_bases == 0) {
    weights_.weight = add_parameter("weight", std::move(init[0]));
  } else {
    weights_.basis = add_parameter("basis", std::move(init[0]));
    weights_.comp = add_parameter("comp", std::move(init[1]));
  }
  if (o.root_weight) {
    root_ = add_parameter("root", init::glorot_uniform({o.in_channels, o.out_channels}, o.in_channels,
                                                       o.out_channels, rng));
  }
  if (o.bias) bias_ = add_parameter("bias", init::zeros({o.out_channels}));
}

Var RgcnConv::forward(const NodeFeatures& x, const GraphContext& graph, uint64_t seed,
                      AttentionExport* /*attention*/) const {
  // Schlichtkrull et al. 2018, Eq. 2 (with the basis decomposition of Eq. 3).
  const RgcnOptions& o = options_;
  ATTEND_CHECK(x.cols() == o.in_channels, "rgcn expects " << o.in_channels << " input features, got " << x.cols());
  const NodeFeatures xd = dropout(x, o.input_dropout, mix64(seed ^ 1), is_training());
  const auto index = graph.relational_index(false, o.num_relations, false);
  Var messages = weights_.project_slots(xd, index->slots);  // [S, C]: W_r x_j per used slot
  Var out = ops::sparse_matmul(index->mean, messages);      // [N, C]: sum_r mean over N_i^r
  if (o.root_weight) out = ops::add(out, project(xd, root_));
  if (o.bias) out = ops::add(out, bias_);
  return out;
}

void RgcnConv::register_into(Registry& registry) {
  registry.add("rgcn", [](const Json& config) -> std::unique_ptr<Module> {
    return std::make_unique<RgcnConv>(RgcnOptions::from_json(config));
  });
  registry.document("rgcn", RgcnOptions::option_list().docs());
}

}  // namespace attend::graph
