#pragma once
/// What the attention layers of the GAT family (gat, gatv2, rgat, graph_transformer, and
/// plugin layers built the same way) share around ops::sparse_attention: their shared options
/// (declared once, base classes of each layer's options), the attention options of one call,
/// the export of the weights, and the ending (heads concatenated or averaged, residual, bias).

#include <cstdint>

#include "attend/core/autodiff.hpp"
#include "attend/core/option_list.hpp"
#include "attend/core/ops/sparse_attention.hpp"
#include "attend/graph/node_layer.hpp"

namespace attend::graph {

/// The options every GAT-family layer has, with the same keys and meanings: its heads, how
/// they end (concatenated or averaged), attention dropout and input dropout.
struct AttentionHeadsOptions {
  int64_t heads = 1;
  bool concat = true;          ///< concatenate heads ([N, heads * out]) or average them ([N, out])
  float dropout = 0.0f;        ///< dropout on the attention weights (training)
  float input_dropout = 0.0f;  ///< dropout on the input features (training)

  static const OptionList<AttentionHeadsOptions>& option_list();
};

/// The whole ending of gat and gatv2 (finish_attention_layer): the heads' options, plus a
/// residual projection of the input and an output bias.
struct AttentionEndingOptions : AttentionHeadsOptions {
  bool residual = false;  ///< add a linear projection of the input
  bool bias = true;       ///< learned output bias

  static const OptionList<AttentionEndingOptions>& option_list();
};

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
