#pragma once
/// GatedAttention: the multi-head attention with a sigmoid gate used by every attention of the
/// Evoformer (AF2 supplement, Alg. 7, 8, 13 and 14 share it), over ops::dense_attention.

#include <cstdint>
#include <vector>

#include "attend/core/layers/linear.hpp"
#include "attend/core/module.hpp"
#include "attend/core/random.hpp"

namespace attend::bio {

/// Parameters: linear_q, linear_k, linear_v [c_in, H * c_hidden] (no bias, Glorot uniform),
/// linear_g [c_in, H * c_hidden] (AF2 "gating" init: weights 0, bias 1), linear_o
/// [H * c_hidden, c_in] (AF2 "final" init: zeros). A child of the attention modules; not
/// registered on its own.
class GatedAttention : public Module {
 public:
  /// Initialisation draws from `rng`.
  GatedAttention(int64_t c_in, int64_t c_hidden, int64_t n_heads, Rng& rng);
  std::string type_name() const override { return "gated_attention"; }
  Json config() const override;

  /// x [B, N, c_in] -> [B, N, c_in] (batch_axis 0; with batch_axis 1 x is [N, B, c_in] and so
  /// is the result): per batch row b, o = sigmoid(x W_g + b_g) * softmax(q k^T / sqrt(c_hidden)
  /// + sum(biases)) v per head, then o W_o + b_o. Each bias broadcasts to [B, H, N, N] (a pair
  /// bias is [1, H, N, N]). `chunk_size` is handed to ops::dense_attention (query rows per work
  /// item; the results do not depend on it). The projections read and write the heads layout
  /// directly (project_to_heads_jointly for q, k, v and the gate in one op, with one product
  /// each for dx and the weights' gradient in its backward; project_from_heads), so no
  /// activation is copied between layouts. Parallel as its ops: dense attention over (b, h,
  /// query chunk) work items. With
  /// `weights_out`, the attention probabilities [B, H, N, N] are also written there (no
  /// gradient; ops::dense_attention's return_weights).
  Var forward(const Var& x, const std::vector<Var>& biases, int64_t chunk_size, Tensor* weights_out = nullptr,
              int batch_axis = 0) const;

 private:
  int64_t c_in_, c_hidden_, n_heads_;
  const Linear* linear_q_;
  const Linear* linear_k_;
  const Linear* linear_v_;
  const Linear* linear_g_;
  const Linear* linear_o_;
};

}  // namespace attend::bio
