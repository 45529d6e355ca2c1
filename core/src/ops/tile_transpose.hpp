#pragma once
/// Internal: the transpose of one kTileVec x kTileVec block of floats in vector registers, for
/// the fused attention's key and value tiles (dense_attention.cpp). Private to attend::core.
///
/// log2(kTileVec) butterfly stages: the stage of distance h pairs rows i and i + h (bit h of i
/// clear) and swaps element (i, j) with (i ^ h, j ^ h) wherever bit h of i and of j differ;
/// after every bit, (i, j) holds what (j, i) held. Each stage is two-source shuffles with fixed
/// patterns (AVX-512: 64 shuffles for 256 floats, where element-wise copies take 256 loads
/// and 256 stores to 16 different cache lines).

#include <cstddef>
#include <cstdint>
#include <utility>

#include "tile_gemm.hpp"

namespace attend::detail {

// Row i (kLower: bit h of i clear) or row i + h of one stage, from a = row i and b = row i + h.
template <int64_t h, bool kLower, std::size_t... I>
[[gnu::always_inline]] inline TileVec tile_butterfly(TileVec a, TileVec b, std::index_sequence<I...>) {
  constexpr int64_t L = kTileVec;  // shuffle indices >= L pick from b
  if constexpr (kLower) {
    return __builtin_shufflevector(a, b, ((I & h) ? L + (I ^ h) : I)...);
  } else {
    return __builtin_shufflevector(a, b, ((I & h) ? L + I : (I ^ h))...);
  }
}

// The stages of distance h, h / 2, ..., 1 on the block's rows.
template <int64_t h>
[[gnu::always_inline]] inline void tile_transpose_stages(TileVec* rows) {
  if constexpr (h >= 1) {
#pragma GCC unroll 16
    for (int64_t i = 0; i < kTileVec; ++i) {
      if ((i & h) != 0) continue;
      const TileVec a = rows[i], b = rows[i + h];
      rows[i] = tile_butterfly<h, true>(a, b, std::make_index_sequence<kTileVec>{});
      rows[i + h] = tile_butterfly<h, false>(a, b, std::make_index_sequence<kTileVec>{});
    }
    tile_transpose_stages<h / 2>(rows);
  }
}

/// dst[j * ldd + i] = src[i * lds + j] for i, j in [0, kTileVec).
inline void tile_transpose(const float* src, int64_t lds, float* dst, int64_t ldd) {
  TileVec rows[kTileVec];
#pragma GCC unroll 16
  for (int64_t i = 0; i < kTileVec; ++i) rows[i] = tile_load(src + i * lds);
  tile_transpose_stages<kTileVec / 2>(rows);
#pragma GCC unroll 16
  for (int64_t i = 0; i < kTileVec; ++i) tile_store(dst + i * ldd, rows[i]);
}

}  // namespace attend::detail
