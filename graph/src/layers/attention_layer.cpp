#include "attend/graph/layers/attention_layer.hpp"

#include "attend/core/ops/elementwise.hpp"
#include "attend/core/ops/head_mean.hpp"
#include "attend/core/ops/shape.hpp"
#include "attend/core/random.hpp"

namespace attend::graph {

const OptionList<AttentionHeadsOptions>& AttentionHeadsOptions::option_list() {
  using O = AttentionHeadsOptions;
  static const OptionList<O> list =
      OptionList<O>("attention heads")
          .add("heads", &O::heads, "attention heads", OptionRange::positive())
          .add("concat", &O::concat, "concatenate the heads ([N, heads * out]); false: their mean ([N, out])")
          .add("dropout", &O::dropout, "dropout on the attention weights (training)", OptionRange::fraction())
          .add("input_dropout", &O::input_dropout, "dropout on the input features (training)", OptionRange::fraction());
  return list;
}

const OptionList<AttentionEndingOptions>& AttentionEndingOptions::option_list() {
  using O = AttentionEndingOptions;
  static const OptionList<O> list = OptionList<O>("attention ending")
                                        .include(AttentionHeadsOptions::option_list())
                                        .add("residual", &O::residual, "add a linear projection of the input")
                                        .add("bias", &O::bias, "learned output bias");
  return list;
}

ops::SparseAttentionOptions layer_attention_options(float dropout, uint64_t seed, bool training,
                                                    float negative_slope) {
  ops::SparseAttentionOptions sa;
  sa.negative_slope = negative_slope;
  sa.dropout = dropout;
  sa.seed = mix64(seed ^ 2);
  sa.training = training;
  return sa;
}

Tensor* attention_weights_out(AttentionExport* attention, const GraphView& view) {
  if (attention == nullptr) return nullptr;
  attention->view = &view;
  return &attention->weights;
}

Var finish_attention_layer(const Var& out, bool concat, const Var& residual, const Var& bias) {
  const Shape& s = out.value().shape();  // [N, H, C]
  Var y = concat ? ops::reshape(out, {s[0], s[1] * s[2]}) : ops::head_mean(out);  // [N, out]
  if (residual.defined()) y = ops::add(y, residual);
  if (bias.defined()) y = ops::add(y, bias);
  return y;
}

}  // namespace attend::graph
