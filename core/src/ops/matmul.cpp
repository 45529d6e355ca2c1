#include "attend/core/ops/matmul.hpp"

#include <algorithm>

#include "attend/core/error.hpp"
#include "attend/core/gemm.hpp"
#include "attend/core/ops/elementwise.hpp"

namespace attend::ops {

Var matmul(const Var& a, const Var& b) {
  const Tensor& av = a.value();
  const Tensor& bv = b.value();
  ATTEND_CHECK(av.rank() >= 1 && bv.rank() == 2 && av.dim(-1) == bv.dim(0),
               "matmul of " << shape_to_string(av.shape()) << " and "
                            << shape_to_string(bv.shape()) << ": expected [..., K] x [K, N]");
  const int64_t k = bv.dim(0), n = bv.dim(1), m = av.numel() / std::max<int64_t>(k, 1);
  Shape out_shape = av.shape();
  out_shape.back() = n;
  Tensor out = Tensor::uninitialized(out_shape);  // [..., N], gemm with beta = 0 writes all
  gemm(false, false, m, n, k, 1.0f, av.data(), k, bv.data(), n, 0.0f, out.data(), n);
  return Var::from_op(std::move(out), {a, b}, [a, b, m, n, k](const Tensor&, const Tensor& gy) {
    if (a.requires_grad()) {  // da [M, K] += dy [M, N] b^T
      gemm(false, true, m, k, n, 1.0f, gy.data(), n, b.value().data(), n, 1.0f,
           a.grad_mut().data(), k);
    }
    if (b.requires_grad()) {  // db [K, N] += a^T [K, M] dy [M, N]
      gemm(true, false, k, n, m, 1.0f, a.value().data(), k, gy.data(), n, 1.0f,
           b.grad_mut().data(), n);
    }
  });
}

Var linear(const Var& x, const Var& weight, const Var& bias) {
  Var y = matmul(x, weight);  // [..., out]
  if (!bias.defined()) return y;
  ATTEND_CHECK(bias.value().rank() == 1 && bias.value().dim(0) == weight.value().dim(1),
               "bias of shape " << shape_to_string(bias.shape()) << " for a weight of shape "
                                << shape_to_string(weight.shape()));
  return add(y, bias);  // [..., out], bias broadcast over rows
}

}  // namespace attend::ops
