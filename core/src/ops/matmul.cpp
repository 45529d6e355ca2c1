#include "attend/core/ops/matmul.hpp"

#include <algorithm>

#include "attend/core/error.hpp"
#include "attend/core/gemm.hpp"
#include "attend/core/parallel.hpp"
#include "support.hpp"

namespace attend::ops {

namespace {
// The gradients of a [M, K] x b [K, N] from dy [M, N].
void matmul_backward(const Var& a, const Var& b, int64_t m, int64_t n, int64_t k, const Tensor& gy) {
  if (a.requires_grad()) {  // da [M, K] += dy [M, N] b^T
    gemm(false, true, m, k, n, 1.0f, gy.data(), n, b.value().data(), n, 1.0f, a.grad_mut().data(), k);
  }
  if (b.requires_grad()) {  // db [K, N] += a^T [K, M] dy [M, N]
    gemm(true, false, k, n, m, 1.0f, a.value().data(), k, gy.data(), n, 1.0f, b.grad_mut().data(), n);
  }
}

// a [..., K] x b [K, N] -> [..., N], with its row count M.
Tensor product(const Tensor& av, const Tensor& bv, int64_t& m) {
  ATTEND_CHECK(av.rank() >= 1 && bv.rank() == 2 && av.dim(-1) == bv.dim(0),
               "matmul of " << shape_to_string(av.shape()) << " and "
                            << shape_to_string(bv.shape()) << ": expected [..., K] x [K, N]");
  const int64_t k = bv.dim(0), n = bv.dim(1);
  m = av.numel() / std::max<int64_t>(k, 1);
  Shape out_shape = av.shape();
  out_shape.back() = n;
  Tensor out = Tensor::uninitialized(out_shape);  // [..., N], gemm with beta = 0 writes all
  gemm(false, false, m, n, k, 1.0f, av.data(), k, bv.data(), n, 0.0f, out.data(), n);
  return out;
}
}  // namespace

Var matmul(const Var& a, const Var& b) {
  int64_t m = 0;
  Tensor out = product(a.value(), b.value(), m);
  const int64_t k = b.value().dim(0), n = b.value().dim(1);
  return Var::from_op(std::move(out), {a, b}, [a, b, m, n, k](const Tensor&, const Tensor& gy) {
    matmul_backward(a, b, m, n, k, gy);
  });
}

// One op for x W + b: the bias is added in place to the product's output, and the backward
// reads dy itself (add(matmul(x, W), b) held a second [M, N] for the product and zeroed and
// filled its gradient). The same bits as that pair: the same float sums, and db by the same
// sum_rows_into.
Var linear(const Var& x, const Var& weight, const Var& bias) {
  if (!bias.defined()) return matmul(x, weight);
  ATTEND_CHECK(bias.value().rank() == 1 && weight.value().rank() == 2 && bias.value().dim(0) == weight.value().dim(1),
               "bias of shape " << shape_to_string(bias.shape()) << " for a weight of shape "
                                << shape_to_string(weight.shape()));
  int64_t m = 0;
  Tensor out = product(x.value(), weight.value(), m);  // [..., N]
  const int64_t k = weight.value().dim(0), n = weight.value().dim(1);
  const float* b = bias.value().data();
  float* y = out.data();
  parallel_for_blocks(m, detail::rows_per_block(n), [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r)
      for (int64_t j = 0; j < n; ++j) y[r * n + j] += b[j];
  });
  return Var::from_op(std::move(out), {x, weight, bias}, [x, weight, bias, m, n, k](const Tensor&, const Tensor& gy) {
    matmul_backward(x, weight, m, n, k, gy);
    if (bias.requires_grad()) detail::sum_rows_into(gy.data(), nullptr, m, n, 1.0f, bias.grad_mut().data());
  });
}

}  // namespace attend::ops
