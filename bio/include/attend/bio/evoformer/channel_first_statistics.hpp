#pragma once
/// The per-position statistics of a layer norm over the channels of a channel-first tensor and
/// its input gradient from them, shared by channel_first_layer_norm and gated_output_projection.

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

/// dx[ch, lo + t] += rstd[t] (g gamma - mean(g gamma) - xhat mean(g gamma xhat)) for positions
/// lo .. lo + n of x and dx [C, rows]: the layer norm's input gradient (Ba et al. 2016), xhat =
/// (x - mean) rstd. g [C, g_stride] is the gradient of the normalised x (before gamma), position
/// t in column t; s_gh[t] and s_ghx[t] are its sums over the channels of g gamma and g gamma
/// xhat; mean and rstd are channel_first_statistics'. Channel by channel, contiguous over the
/// positions.
inline void add_channel_first_layer_norm_dx(const float* x, const float* g, int64_t g_stride, const float* gamma,
                                            const float* mean, const float* rstd, const float* s_gh,
                                            const float* s_ghx, int64_t rows, int64_t c, int64_t lo, int64_t n,
                                            float* dx) {
  const float* __restrict mu = mean;
  const float* __restrict rs = rstd;
  const float* __restrict sg = s_gh;
  const float* __restrict sgx = s_ghx;
  const float inv_c = 1.0f / static_cast<float>(c);
  for (int64_t ch = 0; ch < c; ++ch) {
    const float* __restrict gc = g + ch * g_stride;
    const float* __restrict xc = x + ch * rows + lo;
    float* __restrict dxc = dx + ch * rows + lo;
    for (int64_t t = 0; t < n; ++t) {
      const float xhat = (xc[t] - mu[t]) * rs[t];
      dxc[t] += rs[t] * (gc[t] * gamma[ch] - sg[t] * inv_c - xhat * sgx[t] * inv_c);
    }
  }
}

}  // namespace attend::bio
