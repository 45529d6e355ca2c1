// The smallest attend program: two tensors, a matrix product recorded on the autodiff tape,
// and the gradients of sum(y) with respect to both inputs.
//
//   a = [[1, 2],    b = [[5, 6],    y = a b = [[19, 22],
//        [3, 4]]         [7, 8]]                [43, 50]]
//   d sum(y) / da = ones(2, 2) b^T = [[11, 15], [11, 15]]
//   d sum(y) / db = a^T ones(2, 2) = [[ 4,  4], [ 6,  6]]
#include <iostream>

#include <attend/core/autodiff.hpp>
#include <attend/core/ops/matmul.hpp>
#include <attend/core/tensor.hpp>

namespace {
void print(const char* name, const attend::Tensor& t) {
  std::cout << name << " " << attend::shape_to_string(t.shape()) << ":";
  for (float v : t) std::cout << " " << v;
  std::cout << "\n";
}
}  // namespace

int main() {
  using attend::Tensor;
  using attend::Var;
  Var a(Tensor({2, 2}, {1, 2, 3, 4}), /*requires_grad=*/true);  // [2, 2]
  Var b(Tensor({2, 2}, {5, 6, 7, 8}), /*requires_grad=*/true);  // [2, 2]
  Var y = attend::ops::matmul(a, b);                             // [2, 2]
  y.backward(Tensor(y.shape(), 1.0f));  // seed dL/dy = 1: L = sum(y)
  print("y", y.value());
  print("da", a.grad());
  print("db", b.grad());
  return 0;
}
