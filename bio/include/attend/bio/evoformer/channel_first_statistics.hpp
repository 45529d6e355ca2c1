#pragma once
/// The per-position statistics of a layer norm over the channels of a channel-first tensor,
/// shared by channel_first_layer_norm and gated_output_projection.

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace attend::bio {

/// mean[t] and rstd[t] = 1 / sqrt(var + eps) over the C channels of positions lo .. lo + n of
/// x [C, rows]. Two passes in float (the mean, then the centred squares), each reading x
/// channel by channel, contiguous over the positions.
inline void channel_first_statistics(const float* x, int64_t rows, int64_t c, int64_t lo, int64_t n, float eps,
                                     float* mean, float* rstd) {
  float* __restrict mu = mean;
  float* __restrict rs = rstd;
  std::fill_n(mu, n, 0.0f);
  std::fill_n(rs, n, 0.0f);
  for (int64_t ch = 0; ch < c; ++ch) {
    const float* __restrict xc = x + ch * rows + lo;
    for (int64_t t = 0; t < n; ++t) mu[t] += xc[t];
  }
  const float inv_c = 1.0f / static_cast<float>(c);
  for (int64_t t = 0; t < n; ++t) mu[t] *= inv_c;
  for (int64_t ch = 0; ch < c; ++ch) {
    const float* __restrict xc = x + ch * rows + lo;
    for (int64_t t = 0; t < n; ++t) {
      const float d = xc[t] - mu[t];
      rs[t] += d * d;
    }
  }
  for (int64_t t = 0; t < n; ++t) rs[t] = 1.0f / std::sqrt(rs[t] * inv_c + eps);
}

}  // namespace attend::bio
