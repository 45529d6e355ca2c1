#pragma once
/// Vectorisable exp for float kernels: the polynomial exp behind dense and sparse attention's
/// softmax, the ELU and the sigmoid of fast_sigmoid.hpp (usable by bio/ kernels as well).

#include <bit>
#include <cmath>
#include <cstdint>

namespace attend {

/// exp(x) for x <= 88 (Cephes expf: 2^n * p(r) with n = round(x / ln 2), r = x - n ln 2 and a
/// degree-6 polynomial; relative error below 2.5e-7 against std::exp down to -87, tested in
/// tests/core/test_fast_exp.cpp). x is clamped to [-88, 88]; below about -87.68 (n = -127,
/// which includes -inf) the result is exactly 0, between there and -87 within 1e-44 of the
/// true value (subnormal results). NaN gives NaN. Branch-free with explicit fma and no floor,
/// so that GCC vectorises the loops calling it (the clamps are a max and a min) and the vector
/// body and scalar tail agree bit for bit; tile_exp (core/src/ops/tile_exp.hpp) is the same on
/// a register.
inline float exp_approx(float x) {
  x = -88.0f > x ? -88.0f : x;  // written as max(-88, x) and min(88, x) so that NaN passes
  x = 88.0f < x ? 88.0f : x;
  // t = x / ln 2 + 1.5 * 2^23 + 127: the fraction falls out of the mantissa, whose low bits
  // are then n + 127, the biased exponent of 2^n (0 for n = -127: 2^n becomes +0).
  const float t = std::fma(x, 1.44269504088896341f, 12583039.0f);
  const float n = t - 12583039.0f;
  float r = std::fma(n, -0.693359375f, x);
  r = std::fma(n, 2.12194440e-4f, r);
  float p = 1.9875691500e-4f;
  p = std::fma(p, r, 1.3981999507e-3f);
  p = std::fma(p, r, 8.3334519073e-3f);
  p = std::fma(p, r, 4.1665795894e-2f);
  p = std::fma(p, r, 1.6666665459e-1f);
  p = std::fma(p, r, 5.0000001201e-1f);
  p = std::fma(p, r * r, r + 1.0f);
  const float two_n = std::bit_cast<float>(std::bit_cast<uint32_t>(t) << 23);
  return p * two_n;
}

/// exp(x) - 1 for x <= 0 with an absolute error below 3e-7: the polynomial of exp_approx
/// without its leading 1 near zero (|x| < 0.34, where n = 0 and the result is p - 1 computed
/// as r + r^2 q(r)), exp_approx(x) - 1 elsewhere. Branch-free like exp_approx.
inline float expm1_approx(float x) {
  float q = 1.9875691500e-4f;
  q = std::fma(q, x, 1.3981999507e-3f);
  q = std::fma(q, x, 8.3334519073e-3f);
  q = std::fma(q, x, 4.1665795894e-2f);
  q = std::fma(q, x, 1.6666665459e-1f);
  q = std::fma(q, x, 5.0000001201e-1f);
  const float small = std::fma(q, x * x, x);
  const float large = exp_approx(x) - 1.0f;
  return std::fabs(x) < 0.34f ? small : large;
}

}  // namespace attend
