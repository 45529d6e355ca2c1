#include <catch2/catch.hpp>

#include <algorithm>

#include "attend/core/autodiff.hpp"
#include "attend/core/error.hpp"
#include "attend/core/heap.hpp"
#include "attend/core/ops/matmul.hpp"
#include "attend/core/parallel.hpp"

using namespace attend;

TEST_CASE("backward accumulates through shared inputs", "[core][grad]") {
  Var x(Tensor({1, 2}, {1.0f, 2.0f}), true);
  Var w(Tensor({2, 1}, {3.0f, 4.0f}), true);
  // y = x w + x w: the gradient reaches x along both paths.
  Var y1 = ops::matmul(x, w);
  Var y2 = ops::matmul(x, w);
  Var y = Var::from_op(Tensor({1, 1}, y1.value()[0] + y2.value()[0]), {y1, y2},
                       [y1, y2](const Tensor&, const Tensor& g) {
                         y1.accumulate_grad(g);
                         y2.accumulate_grad(g);
                       });
  y.backward(Tensor({1, 1}, 1.0f));
  CHECK(x.grad()[0] == 6.0f);
  CHECK(x.grad()[1] == 8.0f);
  CHECK(w.grad()[0] == 2.0f);
  CHECK(w.grad()[1] == 4.0f);
}

TEST_CASE("no-grad guard records nothing", "[core][grad]") {
  Var x(Tensor({1, 2}, 1.0f), true);
  Var w(Tensor({2, 2}, 1.0f), true);
  {
    NoGradGuard guard;
    CHECK_FALSE(grad_enabled());
    Var y = ops::matmul(x, w);
    CHECK_FALSE(y.requires_grad());
  }
  CHECK(grad_enabled());
  CHECK(ops::matmul(x, w).requires_grad());
}

TEST_CASE("backward needs a scalar or a seed of the right shape", "[core][grad]") {
  Var x(Tensor({2, 2}, 1.0f), true);
  Var y = ops::matmul(x, x);
  CHECK_THROWS_AS(y.backward(), Error);
  CHECK_THROWS_AS(y.backward(Tensor({3})), Error);
  Var c(Tensor({1}), false);
  CHECK_THROWS_AS(c.backward(), Error);
}

TEST_CASE("a bound gradient accumulates into external memory", "[core][grad]") {
  std::vector<float> values{1.0f, 2.0f}, grads{0.0f, 0.0f};
  Var w(Tensor::view(values.data(), {2, 1}), true);
  w.bind_grad(Tensor::view(grads.data(), {2, 1}));
  Var x(Tensor({1, 2}, {3.0f, 5.0f}));
  ops::matmul(x, w).backward(Tensor({1, 1}, 1.0f));
  CHECK(grads[0] == 3.0f);
  CHECK(grads[1] == 5.0f);
  w.zero_grad();
  CHECK(grads[0] == 0.0f);
}

TEST_CASE("a large gradient starts at zero in memory that held other values, on 1 and 2 threads", "[core][grad]") {
  keep_freed_memory();  // so that the gradient reuses the block freed just before
  const int64_t large = static_cast<int64_t>(detail::kLargeBlock / sizeof(float)) + 1000;
  const int before = num_threads();
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    Var x(Tensor({large}, 1.0f), true);
    {
      Tensor junk = Tensor::uninitialized({large});
      std::fill(junk.begin(), junk.end(), 7.0f);
    }
    const Tensor& g = x.grad_mut();
    CHECK(std::all_of(g.begin(), g.end(), [](float v) { return v == 0.0f; }));
  }
  set_num_threads(before);
}

TEST_CASE("accumulate_grad copies the first gradient into reused memory and adds later ones, on 1 and 2 threads",
          "[core][grad]") {
  keep_freed_memory();  // the gradient reuses the block freed just before: nothing may be left of it
  const int64_t large = static_cast<int64_t>(detail::kLargeBlock / sizeof(float)) + 1000;
  const int before = num_threads();
  Tensor g1 = Tensor::uninitialized({large}), g2 = Tensor::uninitialized({large});  // [large] each
  for (int64_t i = 0; i < large; ++i) {
    g1[i] = static_cast<float>(i % 13) - 6.0f;
    g2[i] = 0.25f * static_cast<float>(i % 7);
  }
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    Var x(Tensor({large}, 1.0f), true);
    {
      Tensor junk = Tensor::uninitialized({large});
      std::fill(junk.begin(), junk.end(), 7.0f);
    }
    x.accumulate_grad(g1);
    REQUIRE(x.has_grad());
    REQUIRE(std::equal(g1.begin(), g1.end(), x.grad().begin()));
    x.accumulate_grad(g2);
    const Tensor& g = x.grad();
    for (int64_t i = 0; i < large; ++i) REQUIRE(g[i] == g1[i] + g2[i]);
    CHECK_THROWS_AS(x.accumulate_grad(Tensor({3})), Error);
  }
  set_num_threads(before);
  // a bound gradient: the first one lands in the external memory too
  std::vector<float> values{1.0f, 2.0f}, grads{0.0f, 0.0f};
  Var w(Tensor::view(values.data(), {2}), true);
  w.bind_grad(Tensor::view(grads.data(), {2}));
  w.accumulate_grad(Tensor({2}, {3.0f, -4.0f}));
  w.accumulate_grad(Tensor({2}, {1.0f, 1.0f}));
  CHECK(grads[0] == 4.0f);
  CHECK(grads[1] == -3.0f);
}
