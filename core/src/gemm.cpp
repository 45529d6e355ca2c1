#include "attend/core/gemm.hpp"

#include <Eigen/Core>

#include "attend/core/parallel.hpp"

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
}  // namespace

void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
          const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
          int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (m >= 2 * kRowBlock || n < 2 * kColBlock) {
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

}  // namespace attend
