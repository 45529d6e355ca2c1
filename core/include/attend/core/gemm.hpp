#pragma once
/// Dense float32 matrix products on row-major buffers: narrow outputs on attend's own register
/// tiles, everything else through OpenBLAS (a build with ATTEND_OPENBLAS, when the loaded
/// library qualifies: docs/performance.md) or Eigen.

#include <cstdint>
#include <string>

namespace attend {

/// C[m, n] = alpha * op(A) * op(B) + beta * C, all row-major; op(X) is X or X^T.
/// A is [m, k] (or [k, m] when trans_a), B is [k, n] (or [n, k] when trans_b); lda, ldb, ldc
/// are row strides. Parallel strategy: C is cut into fixed blocks of rows (or of columns
/// when C has few rows), each computed by one thread (register tiles when C has at most 128
/// columns, else one single-threaded OpenBLAS or Eigen product), so the result is
/// bit-identical for any thread count. Inside a parallel region it runs serially; it may be
/// called from several threads at once.
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
          const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
          int64_t ldc);

/// The same product as one block on the calling thread: for callers that already share their
/// own work items among threads (one product per item). gemm cuts a product of 128 or more
/// rows into blocks of 64 to 512 rows and packs op(B) once per block; here op(B) is packed
/// once (OpenBLAS, Eigen) and narrow products run their fixed row blocks in order. The result
/// depends on the sizes alone (not on the thread count), but may differ from gemm's in the
/// last bits.
void gemm_one_block(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                    const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                    int64_t ldc);

/// What computes gemm's products that are not narrow in this process: "Eigen", or OpenBLAS's
/// own description (version, kernel family), for benchmark reports.
std::string gemm_library();

}  // namespace attend
