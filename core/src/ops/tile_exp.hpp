#pragma once
/// Internal: attend::exp_approx (fast_exp.hpp) on one vector register, for the softmax rows
/// of the fused attention (dense_attention.cpp). Private to attend::core (not installed).
///
/// Why not the scalar function in a loop: vectorising that loop, GCC threads the clamps'
/// branches into masked copies of the polynomial (about 40 instructions per register, the
/// largest part of the softmax's time); written on the vector type it is about 24.

#include <immintrin.h>

#include <cstdint>

#include "attend/core/fast_exp.hpp"
#include "tile_gemm.hpp"

namespace attend::detail {

/// One vector register of 32-bit unsigned integers (the bits of 2^n).
using TileBits = uint32_t __attribute__((vector_size(kTileBytes)));

/// max(lo, min(hi, x)) per lane with a NaN x passed on: the instructions' own max and min (their
/// second operand wins when either is NaN), which GCC does not choose for `a > b ? a : b` on
/// vector types (it writes a compare and a masked move for each).
inline TileVec tile_clamp(TileVec x, float lo, float hi) {
#if defined(__AVX512F__)
  return _mm512_max_ps(_mm512_set1_ps(lo), _mm512_min_ps(_mm512_set1_ps(hi), x));
#elif defined(__AVX__)
  return _mm256_max_ps(_mm256_set1_ps(lo), _mm256_min_ps(_mm256_set1_ps(hi), x));
#else
  return _mm_max_ps(_mm_set1_ps(lo), _mm_min_ps(_mm_set1_ps(hi), x));
#endif
}

/// exp(x) per lane, Cephes expf as in attend::exp_approx: 2^n * p(r), r = x - n ln 2, the same
/// degree-6 polynomial, clamps and limits (exactly 0 for n = -127, which includes -inf). Each
/// `a * b + c` below is one fused multiply-add (GCC contracts them; exp_approx calls std::fma),
/// which is what makes the bits equal. Without FMA instructions the sum would be rounded
/// twice, so such builds call exp_approx lane by lane. 16 vector instructions a register: a
/// max and a min, 11 multiply-adds, 2^n as the shifted bits of the rounding sum.
inline TileVec tile_exp(TileVec x) {
#if !defined(__FMA__)
  for (int64_t l = 0; l < kTileVec; ++l) x[l] = exp_approx(x[l]);
  return x;
#else
  x = tile_clamp(x, -88.0f, 88.0f);
  const TileVec t = x * 1.44269504088896341f + 12583039.0f;  // low mantissa bits: n + 127
  const TileVec n = t - 12583039.0f;
  TileVec r = n * -0.693359375f + x;
  r = n * 2.12194440e-4f + r;
  TileVec p = r * 1.9875691500e-4f + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + (r + 1.0f);
  const TileVec two_n = reinterpret_cast<TileVec>(reinterpret_cast<TileBits>(t) << 23);
  return p * two_n;
#endif
}

}  // namespace attend::detail
