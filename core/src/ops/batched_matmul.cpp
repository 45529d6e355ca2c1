#include "attend/core/ops/batched_matmul.hpp"

#include "attend/core/error.hpp"
#include "attend/core/gemm.hpp"
#include "attend/core/parallel.hpp"

namespace attend::ops {

namespace {

// One product of the batch. With several, each is one item of the batch's parallel loop and
// runs as one block (op(B) packed once: gemm's 64-row blocks packed a 256 x 256 operand four
// times, issue #17); a single product is shared among threads by gemm itself. The choice
// depends on the batch size only.
void item_gemm(int64_t batch, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a,
               int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (batch > 1) {
    gemm_one_block(trans_a, trans_b, m, n, k, 1.0f, a, lda, b, ldb, beta, c, ldc);
  } else {
    gemm(trans_a, trans_b, m, n, k, 1.0f, a, lda, b, ldb, beta, c, ldc);
  }
}

}  // namespace

Var batched_matmul(const Var& a, const Var& b, bool trans_a, bool trans_b) {
  const Tensor& av = a.value();
  const Tensor& bv = b.value();
  ATTEND_CHECK(av.rank() == 3 && bv.rank() == 3 && av.dim(0) == bv.dim(0),
               "batched_matmul of " << shape_to_string(av.shape()) << " and "
                                    << shape_to_string(bv.shape()) << ": expected [B, ., .] twice");
  const int64_t batch = av.dim(0);
  const int64_t m = trans_a ? av.dim(2) : av.dim(1), k = trans_a ? av.dim(1) : av.dim(2);
  const int64_t n = trans_b ? bv.dim(1) : bv.dim(2), kb = trans_b ? bv.dim(2) : bv.dim(1);
  ATTEND_CHECK(k == kb, "batched_matmul: inner sizes differ (" << k << " vs " << kb << ")");
  const int64_t lda = trans_a ? m : k, ldb = trans_b ? k : n;
  Tensor out({batch, m, n});  // [B, M, N]
  parallel_for(0, batch, [&](int64_t i) {
    item_gemm(batch, trans_a, trans_b, m, n, k, av.data() + i * m * k, lda, bv.data() + i * k * n, ldb, 0.0f,
              out.data() + i * m * n, n);
  });
  return Var::from_op(std::move(out), {a, b},
                      [a, b, trans_a, trans_b, batch, m, n, k, lda, ldb](const Tensor&, const Tensor& gy) {
    if (a.requires_grad()) {
      const float* bp = b.value().data();
      float* ga = a.grad_mut().data();
      parallel_for(0, batch, [&](int64_t i) {
        const float* g = gy.data() + i * m * n;  // [M, N]
        const float* bi = bp + i * k * n;
        float* gai = ga + i * m * k;
        if (!trans_a) {  // da [M, K] += dy op(b)^T
          item_gemm(batch, false, !trans_b, m, k, n, g, n, bi, ldb, 1.0f, gai, k);
        } else {  // da [K, M] += op(b) dy^T
          item_gemm(batch, trans_b, true, k, m, n, bi, ldb, g, n, 1.0f, gai, m);
        }
      });
    }
    if (b.requires_grad()) {
      const float* ap = a.value().data();
      float* gb = b.grad_mut().data();
      parallel_for(0, batch, [&](int64_t i) {
        const float* g = gy.data() + i * m * n;  // [M, N]
        const float* ai = ap + i * m * k;
        float* gbi = gb + i * k * n;
        if (!trans_b) {  // db [K, N] += op(a)^T dy
          item_gemm(batch, !trans_a, false, k, n, m, ai, lda, g, n, 1.0f, gbi, n);
        } else {  // db [N, K] += dy^T op(a)
          item_gemm(batch, true, trans_a, n, k, m, g, n, ai, lda, 1.0f, gbi, k);
        }
      });
    }
  });
}

}  // namespace attend::ops
