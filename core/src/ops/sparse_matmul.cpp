#include "attend/core/ops/sparse_matmul.hpp"

#include "attend/core/error.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/random.hpp"

namespace attend::ops {

namespace {
constexpr int64_t kRowBlock = 64;

// out [rows, C] (+)= m [rows, K] * dense [K, C]
void csr_times_dense(const SparseMatrix& m, const float* dense, int64_t c, float* out) {
  const auto& indptr = m.indptr();
  const auto& indices = m.indices();
  const auto& values = m.values();
  parallel_for_blocks(m.rows(), kRowBlock, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      float* row = out + r * c;
      for (int64_t k = indptr[r]; k < indptr[r + 1]; ++k) {
        const float a = values[k];
        const float* src = dense + indices[k] * c;
        for (int64_t j = 0; j < c; ++j) row[j] += a * src[j];
      }
    }
  });
}
}  // namespace

Var sparse_matmul(std::shared_ptr<const SparseMatrix> x, const Var& w) {
  ATTEND_CHECK(x != nullptr, "sparse_matmul of a null matrix");
  const Tensor& wv = w.value();
  ATTEND_CHECK(wv.rank() == 2 && wv.dim(0) == x->cols(),
               "sparse_matmul of a " << x->rows() << " x " << x->cols() << " matrix and "
                                     << shape_to_string(wv.shape()));
  const int64_t c = wv.dim(1);
  Tensor out({x->rows(), c});  // [N, C]
  csr_times_dense(*x, wv.data(), c, out.data());
  return Var::from_op(std::move(out), {w}, [x, w, c](const Tensor&, const Tensor& gy) {
    csr_times_dense(x->transpose(), gy.data(), c, w.grad_mut().data());  // dw [K, C] += x^T dy
  });
}

std::shared_ptr<const SparseMatrix> sparse_dropout(std::shared_ptr<const SparseMatrix> x, float p,
                                                   uint64_t seed) {
  ATTEND_CHECK(p >= 0.0f && p < 1.0f, "dropout probability " << p << " outside [0, 1)");
  if (p == 0.0f) return x;
  const float keep_scale = 1.0f / (1.0f - p);
  std::vector<float> values = x->values();
  const CounterStream stream(seed);
  for (std::size_t k = 0; k < values.size(); ++k) {
    values[k] = stream.at(k) >= p ? values[k] * keep_scale : 0.0f;
  }
  return std::make_shared<const SparseMatrix>(x->with_values(std::move(values)));
}

}  // namespace attend::ops
