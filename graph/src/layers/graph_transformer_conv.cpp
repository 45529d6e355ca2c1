#include "attend/graph/layers/graph_transformer_conv.hpp"

#include "attend/core/error.hpp"
#include "attend/core/init.hpp"
#include "attend/core/ops/activation.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/ops/matmul.hpp"
#include "attend/core/ops/shape.hpp"
#include "attend/core/ops/sparse_attention.hpp"
#include "attend/graph/layers/attention_layer.hpp"
#include "attend/core/option_list.hpp"
#include "attend/core/random.hpp"
#include "attend/core/registry.hpp"

namespace attend::graph {

const OptionList<GraphTransformerOptions>& GraphTransformerOptions::option_list() {
  using O = GraphTransformerOptions;
  static const OptionList<O> list =
      OptionList<O>("graph_transformer")
          .required("in_channels", &O::in_channels, "input features", OptionRange::positive())
          .required("out_channels", &O::out_channels, "features per head", OptionRange::positive())
          .include(AttentionHeadsOptions::option_list())
          .add("beta", &O::beta, "gated skip: out = b skip + (1 - b) attention, b learned per node (needs root_weight)")
          .add("edge_dim", &O::edge_dim, "edge feature width; 0: no edge features", OptionRange::at_least(0))
          .add("root_weight", &O::root_weight, "add the skip projection of the input (x_i W_skip)")
          .add("add_self_loops", &O::add_self_loops, "attend over the graph with one self-loop per node (PyG: none)")
          .add("bias", &O::bias, "bias of the skip projection")
          .add("seed", &O::seed, "seed of the initialisation");
  return list;
}

GraphTransformerOptions GraphTransformerOptions::from_json(const Json& c) {
  const GraphTransformerOptions o = option_list().from_json(c);
  if (o.beta && !o.root_weight) throw InputError("graph_transformer: beta needs root_weight");
  return o;
}

Json GraphTransformerOptions::to_json() const { return option_list().to_json(*this); }

GraphTransformerConv::GraphTransformerConv(GraphTransformerOptions o) : options_(o) {
  Rng rng(o.seed);
  const int64_t hc = o.heads * o.out_channels, out = out_features();
  query_weight_ = add_parameter("query_weight", init::glorot_uniform({o.in_channels, hc}, o.in_channels, hc, rng));
  query_bias_ = add_parameter("query_bias", init::zeros({hc}));
  key_weight_ = add_parameter("key_weight", init::glorot_uniform({o.in_channels, hc}, o.in_channels, hc, rng));
  key_bias_ = add_parameter("key_bias", init::zeros({hc}));
  value_weight_ = add_parameter("value_weight", init::glorot_uniform({o.in_channels, hc}, o.in_channels, hc, rng));
  value_bias_ = add_parameter("value_bias", init::zeros({hc}));
  if (o.edge_dim > 0) {
    edge_weight_ = add_parameter("edge_weight", init::glorot_uniform({o.edge_dim, hc}, o.edge_dim, hc, rng));
  }
  if (o.root_weight) {
    skip_weight_ = add_parameter("skip_weight", init::glorot_uniform({o.in_channels, out}, o.in_channels, out, rng));
    if (o.bias) skip_bias_ = add_parameter("skip_bias", init::zeros({out}));
  }
  if (o.beta) beta_weight_ = add_parameter("beta_weight", init::glorot_uniform({3 * out, 1}, 3 * out, 1, rng));
}

int64_t GraphTransformerConv::out_features() const {
  return options_.concat ? options_.heads * options_.out_channels : options_.out_channels;
}

Var GraphTransformerConv::forward(const NodeFeatures& x, const GraphContext& graph, uint64_t seed,
                                  AttentionExport* attention) const {
  // Shi et al. 2021, Eq. 3-5 (attention with edge features) and Eq. 7 (gated residual).
  const GraphTransformerOptions& o = options_;
  ATTEND_CHECK(x.cols() == o.in_channels,
               "graph_transformer expects " << o.in_channels << " input features, got " << x.cols());
  const GraphView& view = graph.view(o.add_self_loops);
  const NodeFeatures xd = dropout(x, o.input_dropout, mix64(seed ^ 1), is_training());
  const int64_t n = x.rows();
  const Shape heads_shape{n, o.heads, o.out_channels};
  Var q = ops::reshape(ops::add(project(xd, query_weight_), query_bias_), heads_shape);  // [N, H, C]
  Var k = ops::reshape(ops::add(project(xd, key_weight_), key_bias_), heads_shape);      // [N, H, C]
  Var v = ops::reshape(ops::add(project(xd, value_weight_), value_bias_), heads_shape);  // [N, H, C]
  Var edge;
  if (o.edge_dim > 0) {
    if (!view.has_edge_features()) {
      throw InputError("graph_transformer: edge_dim is " + std::to_string(o.edge_dim) +
                       " but the graph has no edge features");
    }
    if (view.edge_features.dim(1) != o.edge_dim) {
      throw InputError("graph_transformer: edge_dim is " + std::to_string(o.edge_dim) +
                       " but the graph's edge features have " +
                       std::to_string(view.edge_features.dim(1)) + " columns");
    }
    edge = ops::reshape(ops::matmul(Var(view.edge_features), edge_weight_),
                        {view.num_edges(), o.heads, o.out_channels});  // [E, H, C]
  }
  const Var out = finish_attention_layer(
      ops::sparse_attention(view.csr, ops::SparseScores::dot(q, k, edge), v,
                            layer_attention_options(o.dropout, seed, is_training()),
                            attention_weights_out(attention, view)),  // [N, H, C]
      o.concat);                                                      // [N, out]
  if (!o.root_weight) return out;
  Var skip = project(xd, skip_weight_);  // [N, out]
  if (o.bias) skip = ops::add(skip, skip_bias_);
  if (!o.beta) return ops::add(out, skip);
  Var gate = ops::sigmoid(ops::matmul(ops::concat({out, skip, ops::sub(out, skip)}), beta_weight_));  // [N, 1]
  Var gate_wide = ops::matmul(gate, Var(Tensor({1, out_features()}, 1.0f)));                          // [N, out]
  return ops::add(out, ops::mul(gate_wide, ops::sub(skip, out)));  // b skip + (1 - b) out
}

void GraphTransformerConv::register_into(Registry& registry) {
  registry.add("graph_transformer", [](const Json& config) -> std::unique_ptr<Module> {
    return std::make_unique<GraphTransformerConv>(GraphTransformerOptions::from_json(config));
  });
  registry.document("graph_transformer", GraphTransformerOptions::option_list().docs());
}

}  // namespace attend::graph
