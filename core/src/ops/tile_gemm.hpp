#pragma once
/// Internal: register-blocked products of small tiles that live in cache, for the fused
/// attention kernels and gemm's narrow products (gemm.cpp). Private to attend::core (not
/// installed).
///
/// Why not Eigen here: an Eigen product packs both operands on every call, which for a
/// 64 x 128 x 64 tile costs about as much as the arithmetic, and its kernels split the depth
/// sum differently for different row counts, so a row's bits would depend on which rows share
/// its tile. This kernel reads op(A) in place (a broadcast per element, so A or A^T cost the
/// same) and B row by row, and every C element is one multiply-add chain over the depth in
/// order, whatever the tile shape: results of a row never depend on its neighbours.

#include <cstdint>
#include <cstring>

namespace attend::detail {

// One vector register of the target, and the widest column block (vectors) of a micro tile:
// 4 of 32 AVX-512 registers, 2 of 16 AVX or SSE ones.
#if defined(__AVX512F__)
inline constexpr int kTileBytes = 64;
inline constexpr int kMicroVecs = 4;
#elif defined(__AVX__)
inline constexpr int kTileBytes = 32;
inline constexpr int kMicroVecs = 2;
#else
inline constexpr int kTileBytes = 16;
inline constexpr int kMicroVecs = 2;
#endif

/// Rows of the micro tile of a V-vector column block: 6 x kMicroVecs accumulators fill the
/// registers with the row loads of B; narrower blocks take 8 rows (AVX-512: 8 x 2 and 8 x 1),
/// so that the attention tiles' 64 and 128 rows split without leftovers.
template <int V>
inline constexpr int kMicroRowsFor = V == kMicroVecs ? 6 : 8;

/// One vector register of floats.
using TileVec = float __attribute__((vector_size(kTileBytes)));
inline constexpr int64_t kTileVec = kTileBytes / sizeof(float);

inline TileVec tile_load(const float* p) {
  TileVec v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline void tile_store(float* p, TileVec v) { std::memcpy(p, &v, sizeof v); }

/// Rows [0, R) x columns [0, kTileVec V) of C (+)= alpha * op(A) B, op(A)(r, p) = a[r*a_rs + p*a_cs].
/// Never inlined: inlined into a caller with live values of its own (the attention's score
/// tile), GCC kept the row loads of B on the stack and read each one back per multiply-add.
template <int R, int V>
[[gnu::noinline]] void tile_micro(int64_t k, float alpha, const float* a, int64_t a_rs, int64_t a_cs,
                       const float* b, int64_t ldb, float* c, int64_t ldc, bool accumulate) {
  TileVec acc[R][V];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
    for (int v = 0; v < V; ++v) acc[r][v] = TileVec{};
  for (int64_t p = 0; p < k; ++p) {
    TileVec bv[V];
#pragma GCC unroll 8
    for (int v = 0; v < V; ++v) bv[v] = tile_load(b + p * ldb + v * kTileVec);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const float av = a[r * a_rs + p * a_cs];
#pragma GCC unroll 8
      for (int v = 0; v < V; ++v) acc[r][v] += av * bv[v];
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
    for (int v = 0; v < V; ++v) {
      float* dst = c + r * ldc + v * kTileVec;
      tile_store(dst, accumulate ? tile_load(dst) + alpha * acc[r][v] : alpha * acc[r][v]);
    }
}

/// The last `left` (< R) rows of a column block as one micro tile of exactly that many rows,
/// so that they keep several independent multiply-add chains.
template <int R, int V>
inline void tile_leftover_rows(int64_t left, int64_t k, float alpha, const float* a, int64_t a_rs,
                               int64_t a_cs, const float* b, int64_t ldb, float* c, int64_t ldc,
                               bool accumulate) {
  if constexpr (R > 1) {
    if (left == R - 1) {
      tile_micro<R - 1, V>(k, alpha, a, a_rs, a_cs, b, ldb, c, ldc, accumulate);
      return;
    }
    tile_leftover_rows<R - 1, V>(left, k, alpha, a, a_rs, a_cs, b, ldb, c, ldc, accumulate);
  }
}

/// All rows [0, m) of the column block [0, kTileVec V): R-row micro tiles, then the leftover rows.
template <int V>
inline void tile_rows(int64_t m, int64_t k, float alpha, const float* a, int64_t a_rs,
                      int64_t a_cs, const float* b, int64_t ldb, float* c, int64_t ldc,
                      bool accumulate) {
  constexpr int R = kMicroRowsFor<V>;
  int64_t r = 0;
  for (; r + R <= m; r += R)
    tile_micro<R, V>(k, alpha, a + r * a_rs, a_rs, a_cs, b, ldb, c + r * ldc, ldc, accumulate);
  if (r < m)
    tile_leftover_rows<R, V>(m - r, k, alpha, a + r * a_rs, a_rs, a_cs, b, ldb, c + r * ldc, ldc,
                             accumulate);
}

/// C[m, n] = alpha * op(A) B, or C += alpha * op(A) B when `accumulate`.
/// op(A) is [m, k] with element (r, p) at a[r*a_rs + p*a_cs] (a_cs = 1: A row-major; a_rs = 1:
/// A^T of a row-major [k, m] matrix); B is row-major [k, n] with row stride ldb; C row-major
/// with row stride ldc. Single-threaded; each element is acc = sum_p op(A)(r,p) B(p,j) as one
/// in-order multiply-add chain, then C = C + alpha * acc.
inline void tile_gemm(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t a_rs,
                      int64_t a_cs, const float* b, int64_t ldb, float* c, int64_t ldc,
                      bool accumulate) {
  int64_t j = 0;
  for (; j + kMicroVecs * kTileVec <= n; j += kMicroVecs * kTileVec)
    tile_rows<kMicroVecs>(m, k, alpha, a, a_rs, a_cs, b + j, ldb, c + j, ldc, accumulate);
  if constexpr (kMicroVecs > 2) {
    for (; j + 2 * kTileVec <= n; j += 2 * kTileVec)
      tile_rows<2>(m, k, alpha, a, a_rs, a_cs, b + j, ldb, c + j, ldc, accumulate);
  }
  for (; j + kTileVec <= n; j += kTileVec)
    tile_rows<1>(m, k, alpha, a, a_rs, a_cs, b + j, ldb, c + j, ldc, accumulate);
  for (; j < n; ++j) {  // last columns one by one, same chain per element
    for (int64_t r = 0; r < m; ++r) {
      float acc = 0.0f;
      for (int64_t p = 0; p < k; ++p) acc += a[r * a_rs + p * a_cs] * b[p * ldb + j];
      float& dst = c[r * ldc + j];
      dst = accumulate ? dst + alpha * acc : alpha * acc;
    }
  }
}

}  // namespace attend::detail
