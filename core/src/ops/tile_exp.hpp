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

#if defined(__FMA__)
/// a * b + c per lane, rounded once: the fused multiply-add instruction named, as exp_approx
/// names std::fma, so that the bits do not hang on whether the compiler contracts `a * b + c`
/// (GCC's -ffp-contract=fast does for GNU C++, -ffp-contract=off or -std=c++20 without GNU
/// extensions would not).
inline TileVec tile_fma(TileVec a, TileVec b, TileVec c) {
#if defined(__AVX512F__)
  return _mm512_fmadd_ps(a, b, c);
#elif defined(__AVX__)
  return _mm256_fmadd_ps(a, b, c);
#else
  return _mm_fmadd_ps(a, b, c);
#endif
}

/// tile_fma with a constant multiplier and addend in every lane.
inline TileVec tile_fma(TileVec a, float b, float c) { return tile_fma(a, TileVec{} + b, TileVec{} + c); }
#endif

/// exp(x) per lane, Cephes expf as in attend::exp_approx: 2^n * p(r), r = x - n ln 2, the same
/// degree-6 polynomial, clamps and limits (exactly 0 for n = -127, which includes -inf), the
/// same fused multiply-adds in the same order (tile_fma here, std::fma there), which is what
/// makes the bits equal (tests/core/test_tile_exp.cpp checks every float in [-88, 88]).
/// Without FMA instructions std::fma is a library call, so such builds call exp_approx lane by
/// lane. 16 vector instructions a register: a max and a min, 11 multiply-adds, 2^n as the
/// shifted bits of the rounding sum.
inline TileVec tile_exp(TileVec x) {
#if !defined(__FMA__)
  for (int64_t l = 0; l < kTileVec; ++l) x[l] = exp_approx(x[l]);
  return x;
#else
  x = tile_clamp(x, -88.0f, 88.0f);
  const TileVec t = tile_fma(x, 1.44269504088896341f, 12583039.0f);  // low mantissa bits: n + 127
  const TileVec n = t - 12583039.0f;
  TileVec r = tile_fma(n, TileVec{} - 0.693359375f, x);
  r = tile_fma(n, TileVec{} + 2.12194440e-4f, r);
  TileVec p = tile_fma(r, 1.9875691500e-4f, 1.3981999507e-3f);
  p = tile_fma(p, r, TileVec{} + 8.3334519073e-3f);
  p = tile_fma(p, r, TileVec{} + 4.1665795894e-2f);
  p = tile_fma(p, r, TileVec{} + 1.6666665459e-1f);
  p = tile_fma(p, r, TileVec{} + 5.0000001201e-1f);
  p = tile_fma(p, r * r, r + 1.0f);
  const TileVec two_n = reinterpret_cast<TileVec>(reinterpret_cast<TileBits>(t) << 23);
  return p * two_n;
#endif
}

}  // namespace attend::detail
