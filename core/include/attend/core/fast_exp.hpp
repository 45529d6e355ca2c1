#pragma once
/// Vectorisable exp for float kernels: the polynomial exp behind dense and sparse attention's
/// softmax, the ELU and the sigmoid of fast_sigmoid.hpp (usable by bio/ kernels as well).

#include <bit>
#include <cmath>
#include <cstdint>

namespace attend {

/// exp(x) for x <= 88, exactly 0 below -87 and for -inf (Cephes expf: 2^n * p(r) with
/// r = x - n ln 2 and a degree-6 polynomial; relative error about 2e-7). Branch-free with
/// explicit fma and no floor, so that GCC vectorises the loops calling it and the vector body
/// and scalar tail agree bit for bit.
inline float exp_approx(float x) {
  const bool underflow = x < -87.0f;
  x = underflow ? -87.0f : x;
  x = x > 88.0f ? 88.0f : x;
  // n = round(x / ln 2): adding 1.5 * 2^23 pushes the fraction out of the mantissa.
  const float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  float r = std::fma(n, -0.693359375f, x);
  r = std::fma(n, 2.12194440e-4f, r);
  float p = 1.9875691500e-4f;
  p = std::fma(p, r, 1.3981999507e-3f);
  p = std::fma(p, r, 8.3334519073e-3f);
  p = std::fma(p, r, 4.1665795894e-2f);
  p = std::fma(p, r, 1.6666665459e-1f);
  p = std::fma(p, r, 5.0000001201e-1f);
  p = std::fma(p, r * r, r + 1.0f);
  const float two_n = std::bit_cast<float>((static_cast<int32_t>(n) + 127) << 23);
  return underflow ? 0.0f : p * two_n;
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
