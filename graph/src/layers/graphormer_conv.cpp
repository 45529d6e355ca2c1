#include "attend/graph/layers/graphormer_conv.hpp"

#include <algorithm>

#include "attend/core/error.hpp"
#include "attend/core/init.hpp"
#include "attend/core/ops/dense_attention.hpp"
#include "attend/core/ops/dropout.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/ops/indexing.hpp"
#include "attend/core/ops/matmul.hpp"
#include "attend/core/ops/shape.hpp"
#include "attend/core/option_list.hpp"
#include "attend/core/random.hpp"
#include "attend/core/registry.hpp"

namespace attend::graph {

const OptionList<GraphormerOptions>& GraphormerOptions::option_list() {
  using O = GraphormerOptions;
  static const OptionList<O> list =
      OptionList<O>("graphormer")
          .required("in_channels", &O::in_channels, "input features", OptionRange::positive())
          .required("out_channels", &O::out_channels, "output features (all heads), a multiple of heads",
                    OptionRange::positive())
          .add("heads", &O::heads, "attention heads", OptionRange::positive())
          .add("max_distance", &O::max_distance, "shortest-path distances above this share one bias",
               OptionRange{0.0, 1000.0})
          .add("max_degree", &O::max_degree, "in-degrees above this share one degree embedding", OptionRange::at_least(0))
          .add("dropout", &O::dropout, "dropout on the attention output (training)", OptionRange::fraction())
          .add("input_dropout", &O::input_dropout, "dropout on the input features (training)", OptionRange::fraction())
          .add("seed", &O::seed, "seed of the initialisation");
  return list;
}

GraphormerOptions GraphormerOptions::from_json(const Json& c) {
  const GraphormerOptions o = option_list().from_json(c);
  if (o.out_channels % o.heads != 0) {
    throw InputError("graphormer: out_channels (" + std::to_string(o.out_channels) + ") must be a multiple of heads (" +
                     std::to_string(o.heads) + ")");
  }
  return o;
}

Json GraphormerOptions::to_json() const { return option_list().to_json(*this); }

GraphormerConv::GraphormerConv(GraphormerOptions o) : options_(o) {
  Rng rng(o.seed);
  const int64_t d = o.out_channels;
  in_weight_ = add_parameter("in_weight", init::glorot_uniform({o.in_channels, d}, o.in_channels, d, rng));
  degree_embedding_ = add_parameter("degree_embedding", init::normal({o.max_degree + 1, d}, 0.02, rng));
  query_weight_ = add_parameter("query_weight", init::glorot_uniform({d, d}, d, d, rng));
  key_weight_ = add_parameter("key_weight", init::glorot_uniform({d, d}, d, d, rng));
  value_weight_ = add_parameter("value_weight", init::glorot_uniform({d, d}, d, d, rng));
  out_weight_ = add_parameter("out_weight", init::glorot_uniform({d, d}, d, d, rng));
  spatial_bias_ = add_parameter("spatial_bias", init::normal({o.max_distance + 2, o.heads}, 0.02, rng));
  bias_ = add_parameter("bias", init::zeros({d}));
}

Var GraphormerConv::forward(const NodeFeatures& x, const GraphContext& graph, uint64_t seed,
                            AttentionExport* attention) const {
  // Ying et al. 2021, Eq. 5 (centrality encoding), Eq. 6 (spatial encoding), Eq. 8 (MHA).
  const GraphormerOptions& o = options_;
  const int64_t n = graph.num_nodes(), heads = o.heads, d = o.out_channels, c = d / heads;
  if (graph.has_edge_mask()) {  // see docs/architecture.md, "Edge masks"
    throw InputError("graphormer: an edge mask cannot be applied: graphormer attends over every node pair and "
                     "sees the edges only through distances and degrees, so it has no per-edge messages to scale");
  }
  if (n > kGraphormerMaxNodes) {
    throw InputError("graphormer: " + std::to_string(n) + " nodes is too many for dense attention (limit " +
                     std::to_string(kGraphormerMaxNodes) + ")");
  }
  ATTEND_CHECK(x.cols() == o.in_channels && x.rows() == n,
               "graphormer expects [" << n << ", " << o.in_channels << "] input features, got [" << x.rows()
                                      << ", " << x.cols() << "]");
  const NodeFeatures xd = dropout(x, o.input_dropout, mix64(seed ^ 1), is_training());
  std::vector<int64_t> degree(n);
  for (int64_t i = 0; i < n; ++i) degree[i] = std::min(graph.plain().csr.in_degree(i), o.max_degree);
  Var h = ops::add(project(xd, in_weight_), ops::embedding(degree_embedding_, degree));  // [N, D]
  auto split_heads = [&](const Var& w) {
    Var t = ops::reshape(ops::matmul(h, w), {n, heads, c});      // [N, H, C]
    return ops::reshape(ops::permute(t, {1, 0, 2}), {1, heads, n, c});  // [1, H, N, C]
  };
  const auto distances = graph.distances(static_cast<int32_t>(o.max_distance));
  const std::vector<int64_t> pair_index(distances->begin(), distances->end());  // [N * N] in 0..max+1
  Var pair_bias = ops::embedding(spatial_bias_, pair_index);                    // [N * N, H]
  pair_bias = ops::reshape(ops::permute(ops::reshape(pair_bias, {n, n, heads}), {2, 0, 1}),
                           {1, heads, n, n});  // [1, H, N, N]
  ops::DenseAttentionOptions da;
  da.biases = {pair_bias};
  da.return_weights = attention != nullptr;
  Tensor weights;  // [1, H, N, N]
  Var attn = ops::dense_attention(split_heads(query_weight_), split_heads(key_weight_), split_heads(value_weight_),
                                  da, attention ? &weights : nullptr);  // [1, H, N, C]
  if (attention) {  // [N * N, H] by pair i * N + j
    Tensor by_pair({n * n, heads});
    for (int64_t hd = 0; hd < heads; ++hd)
      for (int64_t p = 0; p < n * n; ++p) by_pair[p * heads + hd] = weights[hd * n * n + p];
    attention->weights = std::move(by_pair);
    attention->view = nullptr;
  }
  Var merged = ops::reshape(ops::permute(ops::reshape(attn, {heads, n, c}), {1, 0, 2}), {n, d});  // [N, D]
  Var out = ops::dropout(ops::matmul(merged, out_weight_), o.dropout, mix64(seed ^ 2), is_training());
  return ops::add(ops::add(out, h), bias_);
}

void GraphormerConv::register_into(Registry& registry) {
  registry.add("graphormer", [](const Json& config) -> std::unique_ptr<Module> {
    return std::make_unique<GraphormerConv>(GraphormerOptions::from_json(config));
  });
  registry.document("graphormer", GraphormerOptions::option_list().docs());
}

}  // namespace attend::graph
