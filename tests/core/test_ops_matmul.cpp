#include <catch2/catch.hpp>

#include "attend/core/ops/elementwise.hpp"
#include "attend/core/ops/matmul.hpp"
#include "attend/core/parallel.hpp"
#include "grad_check.hpp"

using namespace attend;
using attend::testing::check_gradients;
using attend::testing::random_tensor;

TEST_CASE("matmul forward matches a naive product", "[core]") {
  const Tensor a = random_tensor({2, 5, 7}, 1), b = random_tensor({7, 3}, 2);
  const Tensor y = ops::matmul(Var(a), Var(b)).value();
  REQUIRE(y.shape() == Shape{2, 5, 3});
  for (int64_t r = 0; r < 10; ++r)
    for (int64_t j = 0; j < 3; ++j) {
      double s = 0;
      for (int64_t k = 0; k < 7; ++k) s += double(a[r * 7 + k]) * b[k * 3 + j];
      CHECK(y[r * 3 + j] == Approx(s).margin(1e-5));
    }
}

TEST_CASE("matmul and linear gradients", "[core][grad]") {
  auto r = check_gradients([](const std::vector<Var>& v) { return ops::matmul(v[0], v[1]); },
                           {random_tensor({2, 3, 4}, 3), random_tensor({4, 5}, 4)});
  CHECK(r.ok);
  INFO(r.report);
  auto l = check_gradients(
      [](const std::vector<Var>& v) { return ops::linear(v[0], v[1], v[2]); },
      {random_tensor({6, 4}, 5), random_tensor({4, 3}, 6), random_tensor({3}, 7)});
  INFO(l.report);
  CHECK(l.ok);
}

TEST_CASE("matmul is bit-identical for 1 and 2 threads", "[core]") {
  const Tensor a = random_tensor({700, 300}, 8), b = random_tensor({300, 90}, 9);
  const Tensor g = random_tensor({700, 90}, 10);
  auto run = [&](int threads) {
    set_num_threads(threads);
    Var va(a, true), vb(b, true);
    Var y = ops::matmul(va, vb);
    y.backward(g);
    return std::vector<Tensor>{y.value(), va.grad(), vb.grad()};
  };
  const int before = num_threads();
  auto one = run(1), two = run(2);
  set_num_threads(before);
  for (std::size_t i = 0; i < one.size(); ++i) CHECK(bitwise_equal(one[i], two[i]));
}

TEST_CASE("linear gives the bits of add(matmul(x, W), b), value and gradients, on 1 and 2 threads", "[core]") {
  // x [4, 500, 30]: rows over several parallel blocks; a gradient already in x's slot
  const Tensor x = random_tensor({4, 500, 30}, 11), w = random_tensor({30, 40}, 12), b = random_tensor({40}, 13);
  const Tensor g = random_tensor({4, 500, 40}, 14), earlier = random_tensor({4, 500, 30}, 15);
  auto run = [&](int threads, bool fused) {
    set_num_threads(threads);
    Var vx(x, true), vw(w, true), vb(b, true);
    vx.grad_mut().copy_from(earlier);
    Var y = fused ? ops::linear(vx, vw, vb) : ops::add(ops::matmul(vx, vw), vb);
    y.backward(g);
    return std::vector<Tensor>{y.value(), vx.grad(), vw.grad(), vb.grad()};
  };
  const int before = num_threads();
  const auto reference = run(1, false), one = run(1, true), two = run(2, true);
  set_num_threads(before);
  for (std::size_t i = 0; i < reference.size(); ++i) {
    INFO(i);
    CHECK(bitwise_equal(one[i], reference[i]));
    CHECK(bitwise_equal(two[i], reference[i]));
  }
}
