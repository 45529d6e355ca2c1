#include "attend/bio/evoformer/gated_attention.hpp"

#include "attend/bio/evoformer/head_projection.hpp"
#include "attend/core/error.hpp"
#include "attend/core/ops/dense_attention.hpp"
#include "evoformer_common.hpp"

namespace attend::bio {

using evoformer_detail::Init;
using evoformer_detail::make_linear;

GatedAttention::GatedAttention(int64_t c_in, int64_t c_hidden, int64_t n_heads, Rng& rng)
    : c_in_(c_in), c_hidden_(c_hidden), n_heads_(n_heads) {
  const int64_t hc = c_hidden * n_heads;
  linear_q_ = &add_child("linear_q", make_linear(c_in, hc, false, Init::kGlorot, rng));
  linear_k_ = &add_child("linear_k", make_linear(c_in, hc, false, Init::kGlorot, rng));
  linear_v_ = &add_child("linear_v", make_linear(c_in, hc, false, Init::kGlorot, rng));
  linear_g_ = &add_child("linear_g", make_linear(c_in, hc, true, Init::kGating, rng));
  linear_o_ = &add_child("linear_o", make_linear(hc, c_in, true, Init::kFinal, rng));
}

Json GatedAttention::config() const {
  return Json{{"c_in", c_in_}, {"c_hidden", c_hidden_}, {"n_heads", n_heads_}};
}

Var GatedAttention::forward(const Var& x, const std::vector<Var>& biases, int64_t chunk_size, Tensor* weights_out,
                            int batch_axis) const {
  ATTEND_CHECK(x.value().rank() == 3 && x.dim(2) == c_in_ && (batch_axis == 0 || batch_axis == 1),
               "gated attention expects [B, N, " << c_in_ << "] or [N, B, " << c_in_ << "], got "
                                                 << shape_to_string(x.shape()));
  // q, k, v and the gate in one op (one product for dx and one for the weights' gradient in
  // its backward); the gate last: it carries the joint backward, and dense_attention consumes
  // all four.
  const std::vector<Var> qkvg = project_to_heads_jointly(
      x, {linear_q_->weight(), linear_k_->weight(), linear_v_->weight(), linear_g_->weight()},
      {linear_q_->bias(), linear_k_->bias(), linear_v_->bias(), linear_g_->bias()}, n_heads_, batch_axis);
  const Var &q = qkvg[0], &k = qkvg[1], &v = qkvg[2];  // [B, H, N, c_hidden]
  ops::DenseAttentionOptions options;
  options.biases = biases;  // each -> [B, H, N, N]
  options.gate = qkvg[3];   // [B, H, N, c_hidden]
  options.chunk_size = chunk_size;
  options.return_weights = weights_out != nullptr;
  const Var o = ops::dense_attention(q, k, v, options, weights_out);                  // [B, H, N, c_hidden]
  return project_from_heads(o, linear_o_->weight(), linear_o_->bias(), batch_axis);  // x's layout
}

}  // namespace attend::bio
