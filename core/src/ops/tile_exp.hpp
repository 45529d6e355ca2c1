#pragma once
/// Internal: attend::exp_approx (fast_exp.hpp) on one vector register, for the softmax rows
/// of the fused attention (dense_attention.cpp). Private to attend::core (not installed).
///
/// Why not the scalar function in a loop: vectorising that loop, GCC threads the clamps'
/// branches into masked copies of the polynomial (about 40 instructions per register, the
/// largest part of the softmax's time); written on the vector type it is about 24.

#include <cstdint>

#include "attend/core/fast_exp.hpp"
#include "tile_gemm.hpp"

namespace attend::detail {

/// One vector register of 32-bit integers (the exponent of 2^n).
using TileInt = int32_t __attribute__((vector_size(kTileBytes)));

/// exp(x) per lane, Cephes expf as in attend::exp_approx: 2^n * p(r), r = x - n ln 2, the same
/// degree-6 polynomial and limits (x clamped to [-87, 88], exactly 0 below -87 and for -inf).
/// Each `a * b + c` below is one fused multiply-add (GCC contracts them; exp_approx calls
/// std::fma), which is what makes the bits equal. Without FMA instructions the sum would be
/// rounded twice, so such builds call exp_approx lane by lane.
inline TileVec tile_exp(TileVec x) {
#if !defined(__FMA__)
  for (int64_t l = 0; l < kTileVec; ++l) x[l] = exp_approx(x[l]);
  return x;
#else
  const TileVec lowest = TileVec{} - 87.0f, highest = TileVec{} + 88.0f;
  const TileInt underflow = x < lowest;
  x = underflow ? lowest : x;
  x = x > highest ? highest : x;
  // n = round(x / ln 2): adding 1.5 * 2^23 pushes the fraction out of the mantissa.
  const TileVec n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  TileVec r = n * -0.693359375f + x;
  r = n * 2.12194440e-4f + r;
  TileVec p = r * 1.9875691500e-4f + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + (r + 1.0f);
  const TileVec two_n = reinterpret_cast<TileVec>((__builtin_convertvector(n, TileInt) + 127) << 23);
  return underflow ? TileVec{} : p * two_n;
#endif
}

}  // namespace attend::detail
