#pragma once
/// Internal: the sum and the largest of the lanes of one vector register, as a fixed tree of
/// log2(kTileVec) shuffled halves (lane l meets lane l ^ h for h = kTileVec / 2, ..., 1), for
/// the row reductions of the fused attention (dense_attention.cpp). A lane-by-lane loop is a
/// chain of kTileVec dependent scalar operations per row; the tree is log2(kTileVec) vector
/// ones. The order depends on kTileVec only. Private to attend::core.

#include <cstddef>
#include <cstdint>
#include <utility>

#include "tile_gemm.hpp"

namespace attend::detail {

// v with lane l and lane l ^ h swapped.
template <int64_t h, std::size_t... I>
[[gnu::always_inline]] inline TileVec tile_swap_lanes(TileVec v, std::index_sequence<I...>) {
  return __builtin_shufflevector(v, v, (I ^ h)...);
}

/// The sum of the lanes of v: ((v[l] + v[l ^ h]) ...) down to lane 0, h from kTileVec / 2 to 1.
inline float tile_sum(TileVec v) {
  if constexpr (kTileVec >= 16) v += tile_swap_lanes<8>(v, std::make_index_sequence<kTileVec>{});
  if constexpr (kTileVec >= 8) v += tile_swap_lanes<4>(v, std::make_index_sequence<kTileVec>{});
  v += tile_swap_lanes<2>(v, std::make_index_sequence<kTileVec>{});
  v += tile_swap_lanes<1>(v, std::make_index_sequence<kTileVec>{});
  return v[0];
}

/// The largest lane of v. A NaN lane is passed over (NaN only when every lane is): at each
/// step a NaN v[l] takes its partner, so it cannot hide the lanes that meet it later.
inline float tile_max(TileVec v) {
  TileVec w;
  if constexpr (kTileVec >= 16) {
    w = tile_swap_lanes<8>(v, std::make_index_sequence<kTileVec>{});
    v = (v < w) | (v != v) ? w : v;
  }
  if constexpr (kTileVec >= 8) {
    w = tile_swap_lanes<4>(v, std::make_index_sequence<kTileVec>{});
    v = (v < w) | (v != v) ? w : v;
  }
  w = tile_swap_lanes<2>(v, std::make_index_sequence<kTileVec>{});
  v = (v < w) | (v != v) ? w : v;
  w = tile_swap_lanes<1>(v, std::make_index_sequence<kTileVec>{});
  v = (v < w) | (v != v) ? w : v;
  return v[0];
}

}  // namespace attend::detail
