#include "attend/core/gemm.hpp"

#include <Eigen/Core>

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#include <vector>

#ifdef ATTEND_HAVE_OPENBLAS
#include <cblas.h>
#endif

#include "attend/core/parallel.hpp"
#include "ops/tile_gemm.hpp"
#ifdef ATTEND_HAVE_OPENBLAS
#include "openblas_one_thread.hpp"
#endif

namespace attend {

namespace {
using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMap = Eigen::Map<const RowMajor, 0, Eigen::OuterStride<>>;
using MutMap = Eigen::Map<RowMajor, 0, Eigen::OuterStride<>>;

constexpr int64_t kRowBlock = 64;
constexpr int64_t kColBlock = 256;
// Products with at least this many rows go in blocks of kLargeRowBlock rows: Eigen packs the
// right-hand side once per block, so larger blocks pack it less often (2048^3 on 2 threads:
// 243 -> 314 GFLOP/s, docs/performance.md), and there are still >= 4 blocks to share.
constexpr int64_t kLargeRows = 1024;
constexpr int64_t kLargeRowBlock = 256;

// Narrow products (C has at most kNarrowCols columns, a whole number of vector registers,
// and a depth of at least kNarrowMinDepth) skip Eigen: its packing copies the whole large
// operand once per block for only n multiply-adds per element, which was a third of the
// Cora-shaped GAT layer's time. detail::tile_gemm's register tiles read op(A) in place and
// stream op(B) from cache instead. Below that depth Eigen's kernels are faster.
constexpr int64_t kNarrowCols = 128;
constexpr int64_t kNarrowMinDepth = 64;
// Rows of C per parallel block (about: NarrowBlocks) and the depth per pass over a block
// (docs/performance.md, issue #17: the best of the sizes tried).
constexpr int64_t kNarrowRowBlock = 96;
constexpr int64_t kNarrowRowGroup = 24;  // block edges at multiples of the 6 and 8 tile rows
constexpr int64_t kNarrowDepth = 256;

// C[r0:r1, c0:c1] = alpha * op(A)[r0:r1, :] * op(B)[:, c0:c1] + beta * C[...]
void gemm_block(bool trans_a, bool trans_b, int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                int64_t k, float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
                float beta, float* c, int64_t ldc) {
  const int64_t rows = r1 - r0, cols = c1 - c0;
  MutMap cm(c + r0 * ldc + c0, rows, cols, Eigen::OuterStride<>(ldc));
  // op(A) rows r0..r1: either rows of A, or columns of A (then transposed).
  auto lhs = [&]() {
    return trans_a ? ConstMap(a + r0, k, rows, Eigen::OuterStride<>(lda))
                   : ConstMap(a + r0 * lda, rows, k, Eigen::OuterStride<>(lda));
  };
  auto rhs = [&]() {
    return trans_b ? ConstMap(b + c0 * ldb, cols, k, Eigen::OuterStride<>(ldb))
                   : ConstMap(b + c0, k, cols, Eigen::OuterStride<>(ldb));
  };
  if (beta == 0.0f) {
    cm.setZero();
  } else if (beta != 1.0f) {
    cm *= beta;
  }
  if (k == 0) return;
  const ConstMap am = lhs();
  const ConstMap bm = rhs();
  if (!trans_a && !trans_b) cm.noalias() += alpha * am * bm;
  if (!trans_a && trans_b) cm.noalias() += alpha * am * bm.transpose();
  if (trans_a && !trans_b) cm.noalias() += alpha * am.transpose() * bm;
  if (trans_a && trans_b) cm.noalias() += alpha * am.transpose() * bm.transpose();
}

bool is_narrow(int64_t n, int64_t k) {
  return n <= kNarrowCols && n % detail::kTileVec == 0 && k >= kNarrowMinDepth;
}

// Rows [r0, r1) of C = op(A) * B + beta * C, with B row-major [k, n] and C narrow (is_narrow),
// accumulated in C by depth slices of kNarrowDepth: C = ((beta C + s_0) + s_1) + ..., each s_i
// one in-order multiply-add chain per element. Slice edges depend on k only. (No alpha here:
// a scale factor held through the tiles' loop costs GCC two registers, spilled to the stack.)
void narrow_block(bool trans_a, int64_t r0, int64_t r1, int64_t n, int64_t k, const float* a,
                  int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  const int64_t rows = r1 - r0;
  c += r0 * ldc;
  if (beta != 0.0f && beta != 1.0f)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < n; ++j) c[r * ldc + j] *= beta;
  // op(A)^T's slice [depth, rows] when op(A) = A^T (about 96 KiB: on the heap, not on a
  // worker thread's stack).
  const auto slice =
      std::make_unique_for_overwrite<float[]>(trans_a ? std::min(k, kNarrowDepth) * rows : 0);
  for (int64_t p0 = 0; p0 < k; p0 += kNarrowDepth) {
    const int64_t depth = std::min(kNarrowDepth, k - p0);
    const bool accumulate = p0 > 0 || beta != 0.0f;
    if (trans_a) {
      // op(A) = A^T: its rows are A's columns, one element per row of A, each row of A on
      // another page. Copied once into a compact slice so the tiles stay in L1 and the TLB
      // (read in place instead: 2708 x 1433 x 64 on one core 3.1 -> 6.0 ms).
      for (int64_t p = 0; p < depth; ++p)
        std::copy_n(a + (p0 + p) * lda + r0, rows, slice.get() + p * rows);
      detail::tile_gemm(rows, n, depth, 1.0f, slice.get(), 1, rows, b + p0 * ldb, ldb, c, ldc,
                        accumulate);
    } else {
      detail::tile_gemm(rows, n, depth, 1.0f, a + r0 * lda + p0, lda, 1, b + p0 * ldb, ldb, c,
                        ldc, accumulate);
    }
  }
}

// Row edges of a narrow product's blocks: about kNarrowRowBlock rows each, their count even
// when there is more than one (threads under a static schedule get equal counts: 2708 rows in
// 29 blocks of 96 gave one of 2 threads 15 blocks and the other 14), edges at multiples of
// kNarrowRowGroup rows shared out evenly. They depend on m only; no element's bits depend on
// them (narrow_block computes each element alike in any block).
struct NarrowBlocks {
  int64_t m = 0, count = 0, groups = 0;
  explicit NarrowBlocks(int64_t rows) : m(rows) {
    count = (m + kNarrowRowBlock - 1) / kNarrowRowBlock;
    if (count > 1) count += count % 2;
    groups = (m + kNarrowRowGroup - 1) / kNarrowRowGroup;
  }
  int64_t edge(int64_t b) const { return std::min(m, kNarrowRowGroup * (b * groups / count)); }
};

// C = alpha * op(A) * op(B) + beta * C for a narrow C (is_narrow), in the blocks of
// NarrowBlocks, as op(A) * (alpha op(B)) + beta * C; the blocks shared among threads when
// `among_threads`, else in order on the calling thread (the same bits either way).
void narrow_gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                 const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                 int64_t ldc, bool among_threads) {
  std::vector<float> b_rows;  // alpha op(B) as a row-major [k, n] copy, unless that is B
  if (trans_b || alpha != 1.0f) {
    b_rows.resize(k * n);
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j)
        b_rows[p * n + j] = alpha * (trans_b ? b[j * ldb + p] : b[p * ldb + j]);
    b = b_rows.data();
    ldb = n;
  }
  const NarrowBlocks blocks(m);
  auto block = [&](int64_t i) {
    const int64_t r0 = blocks.edge(i), r1 = blocks.edge(i + 1);
    if (r0 < r1) narrow_block(trans_a, r0, r1, n, k, a, lda, b, ldb, beta, c, ldc);
  };
  if (among_threads) {
    parallel_for(0, blocks.count, block);
  } else {
    for (int64_t i = 0; i < blocks.count; ++i) block(i);
  }
}
#ifdef ATTEND_HAVE_OPENBLAS
// OpenBLAS blocks (the products that are neither narrow nor handed to Eigen): OpenBLAS packs
// op(B) once per row block, so larger blocks are faster (2048^3 on one core: 185 GFLOP/s in
// 256-row blocks, 210 in 512-row ones; docs/performance.md), but a product needs several
// blocks to share among threads. Blocks are a quarter of the rows rounded up to a multiple of
// kBlasMinBlock, within [kBlasMinBlock, kBlasMaxBlock]: 4 blocks up to 2048 rows, 512 rows
// beyond. With fewer than 2 kBlasMinBlock rows and at least kBlasMaxBlock columns, the same
// rule cuts the columns instead.
constexpr int64_t kBlasMinBlock = 64;
constexpr int64_t kBlasMaxBlock = 512;
constexpr int64_t kBlasBlocks = 4;

// Whether the OpenBLAS loaded into this process does attend's products. Two conditions:
// - Its pthreads build (openblas_get_parallel() == 1). Only that build locks the table of
//   packing buffers; Debian's serial build does not, and two OpenMP threads calling it at
//   once can share a buffer and get wrong products (measured: up to 2 % of the calls).
// - Kernels as wide as attend's own: a build for AVX-512 keeps Eigen when OpenBLAS runs an
//   AVX2 kernel family (OPENBLAS_CORETYPE=Haswell on an AVX-512 CPU: 110 GFLOP/s against
//   Eigen's 139 at 2048^3 on one core, docs/performance.md).
bool openblas_does_products() {
  static const bool chosen = [] {
    if (openblas_get_parallel() != 1) return false;
#if defined(__AVX512F__)
    const char* core = openblas_get_corename();
    bool wide = false;
    for (const char* name : {"SkylakeX", "Cooperlake", "SapphireRapids"})
      wide = wide || std::strcmp(core, name) == 0;
    if (!wide) return false;
#endif
    return true;
  }();
  return chosen;
}

// Rows (or columns) per OpenBLAS block for a product with `extent` rows (or columns).
int64_t blas_block(int64_t extent) {
  const int64_t quarter = (extent + kBlasBlocks - 1) / kBlasBlocks;
  const int64_t rounded = (quarter + kBlasMinBlock - 1) / kBlasMinBlock * kBlasMinBlock;
  return std::clamp(rounded, kBlasMinBlock, kBlasMaxBlock);
}

// C = alpha * op(A) * op(B) + beta * C in fixed blocks (blas_block) shared among threads, or
// as one block when `one_block`; each block one single-threaded cblas_sgemm. (beta = 0 does
// not read C.)
void blas_gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
               const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
               int64_t ldc, bool one_block) {
  // Each call on the calling thread alone: OpenBLAS's own threads split a product by their
  // count. The count is set back when the product is done (torch links the same library).
  const detail::OpenblasOneThread one_thread;
  const auto ta = trans_a ? CblasTrans : CblasNoTrans, tb = trans_b ? CblasTrans : CblasNoTrans;
  auto block = [&](int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
    const float* a0 = trans_a ? a + r0 : a + r0 * lda;  // op(A) rows r0..r1
    const float* b0 = trans_b ? b + c0 * ldb : b + c0;  // op(B) columns c0..c1
    cblas_sgemm(CblasRowMajor, ta, tb, static_cast<int>(r1 - r0), static_cast<int>(c1 - c0),
                static_cast<int>(k), alpha, a0, static_cast<int>(lda), b0, static_cast<int>(ldb),
                beta, c + r0 * ldc + c0, static_cast<int>(ldc));
  };
  if (one_block) {
    block(0, m, 0, n);
  } else if (m >= 2 * kBlasMinBlock || n < kBlasMaxBlock) {
    parallel_for_blocks(m, blas_block(m), [&](int64_t r0, int64_t r1) { block(r0, r1, 0, n); });
  } else {
    parallel_for_blocks(n, blas_block(n), [&](int64_t c0, int64_t c1) { block(0, m, c0, c1); });
  }
}

// Whether cblas takes this product: its sizes and strides are 32-bit, and it refuses a stride
// of 0 (an empty depth is gemm_block's).
bool fits_blas(int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc) {
  return k > 0 && std::max({m, n, k, lda, ldb, ldc}) <= INT_MAX;
}
#endif
}  // namespace

namespace {

// gemm's choice of kernel for C = alpha * op(A) * op(B) + beta * C: its fixed blocks shared
// among threads, or (`one_block`) the product as one block on the calling thread.
void choose_kernel(bool one_block, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                   const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (is_narrow(n, k)) {
    narrow_gemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, !one_block);
    return;
  }
#ifdef ATTEND_HAVE_OPENBLAS
  if (openblas_does_products() && fits_blas(m, n, k, lda, ldb, ldc)) {
    blas_gemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, one_block);
    return;
  }
#endif
  if (one_block) {
    gemm_block(trans_a, trans_b, 0, m, 0, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  } else if (m >= 2 * kRowBlock || n < 2 * kColBlock) {
    const int64_t row_block = m >= kLargeRows ? kLargeRowBlock : kRowBlock;  // size only
    parallel_for_blocks(m, row_block, [&](int64_t r0, int64_t r1) {
      gemm_block(trans_a, trans_b, r0, r1, 0, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    });
  } else {
    parallel_for_blocks(n, kColBlock, [&](int64_t c0, int64_t c1) {
      gemm_block(trans_a, trans_b, 0, m, c0, c1, k, alpha, a, lda, b, ldb, beta, c, ldc);
    });
  }
}

}  // namespace

void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
          const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
          int64_t ldc) {
  choose_kernel(false, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void gemm_one_block(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                    const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                    int64_t ldc) {
  choose_kernel(true, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

std::string gemm_library() {
#ifdef ATTEND_HAVE_OPENBLAS
  if (openblas_does_products()) return openblas_get_config();
#endif
  return "Eigen";
}

}  // namespace attend
