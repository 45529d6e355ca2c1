#pragma once
/// What the attention layers of the GAT family (gat, gatv2, rgat, graph_transformer, and
/// plugin layers built the same way) share around ops::sparse_attention: the attention
/// options of one call, the export of the weights, and the ending (heads concatenated or
/// averaged, residual, bias).

#include <cstdint>

#include "attend/core/autodiff.hpp"
#include "attend/core/ops/sparse_attention.hpp"
#include "attend/graph/node_layer.hpp"

namespace attend::graph {

/// The options of a layer's ops::sparse_attention call: attention dropout `dropout` (applied
/// only when `training`) drawn from the layer's dropout stream 2 (mix64(seed ^ 2); stream 1 is
/// its input dropout), and the LeakyReLU slope of the gat and gatv2 rules.
ops::SparseAttentionOptions layer_attention_options(float dropout, uint64_t seed, bool training,
                                                    float negative_slope = 0.2f);

/// Where ops::sparse_attention writes the weights when the caller asked for them through
/// `attention` (recording `view` there, the edges they belong to); nullptr otherwise.
Tensor* attention_weights_out(AttentionExport* attention, const GraphView& view);

/// The ending of a GAT-family layer: out [N, H, C] -> [N, H * C] with `concat`, else the mean
/// over heads [N, C]; then + residual and + bias ([N, out] and [out]), each when defined.
Var finish_attention_layer(const Var& out, bool concat, const Var& residual = Var(), const Var& bias = Var());

}  // namespace attend::graph
