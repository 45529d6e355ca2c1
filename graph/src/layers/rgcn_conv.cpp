#include "attend/graph/layers/rgcn_conv.hpp"

#include "attend/core/error.hpp"
#include "attend/core/init.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/ops/sparse_matmul.hpp"
#include "attend/core/options_json.hpp"
#include "attend/core/random.hpp"
#include "attend/core/registry.hpp"

namespace attend::graph {

RgcnOptions RgcnOptions::from_json(const Json& c) {
  const std::string me = "rgcn";
  check_option_keys(c, {"in_channels", "out_channels", "num_relations", "num_bases", "root_weight", "bias",
                        "input_dropout", "seed"},
                    me);
  RgcnOptions o;
  o.in_channels = option_required<int64_t>(c, "in_channels", me);
  o.out_channels = option_required<int64_t>(c, "out_channels", me);
  o.num_relations = option_required<int64_t>(c, "num_relations", me);
  if (!(c.contains("num_bases") && c.at("num_bases").is_null())) {  // PyG: None = no decomposition
    o.num_bases = option_or(c, "num_bases", o.num_bases, me);
  }
  o.root_weight = option_or(c, "root_weight", o.root_weight, me);
  o.bias = option_or(c, "bias", o.bias, me);
  o.input_dropout = option_or(c, "input_dropout", o.input_dropout, me);
  o.seed = option_or(c, "seed", o.seed, me);
  if (o.in_channels <= 0 || o.out_channels <= 0 || o.num_relations <= 0 || o.num_bases < 0) {
    throw InputError("rgcn: in_channels, out_channels and num_relations must be positive, num_bases >= 0");
  }
  if (o.input_dropout < 0 || o.input_dropout >= 1) throw InputError("rgcn: input_dropout must be in [0, 1)");
  return o;
}

Json RgcnOptions::to_json() const {
  return {{"in_channels", in_channels}, {"out_channels", out_channels}, {"num_relations", num_relations},
          {"num_bases", num_bases}, {"root_weight", root_weight}, {"bias", bias},
          {"input_dropout", input_dropout}, {"seed", seed}};
}

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
}

}  // namespace attend::graph
