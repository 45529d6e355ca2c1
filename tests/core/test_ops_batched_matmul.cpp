#include <catch2/catch.hpp>

#include "attend/core/ops/batched_matmul.hpp"
#include "attend/core/parallel.hpp"
#include "grad_check.hpp"

using namespace attend;

TEST_CASE("batched_matmul matches a naive product for every transpose combination", "[core]") {
  const int64_t batch = 3, m = 4, n = 5, k = 6;
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      const Tensor a = testing::random_tensor(ta ? Shape{batch, k, m} : Shape{batch, m, k}, 1);
      const Tensor b = testing::random_tensor(tb ? Shape{batch, n, k} : Shape{batch, k, n}, 2);
      const Tensor c = ops::batched_matmul(Var(a), Var(b), ta, tb).value();
      REQUIRE(c.shape() == Shape{batch, m, n});
      for (int64_t t = 0; t < batch; ++t)
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            double s = 0;
            for (int64_t q = 0; q < k; ++q)
              s += double(ta ? a.at({t, q, i}) : a.at({t, i, q})) * (tb ? b.at({t, j, q}) : b.at({t, q, j}));
            CHECK(std::abs(c.at({t, i, j}) - s) < 1e-5);
          }
      const auto r = testing::check_gradients(
          [ta, tb](const std::vector<Var>& v) { return ops::batched_matmul(v[0], v[1], ta, tb); }, {a, b});
      INFO(r.report);
      CHECK(r.ok);
    }
}

// Several products take gemm_one_block per item, a single one gemm's blocks: both against the
// written-out product, and 1 against 2 threads bit for bit (values and gradients), at sizes that
// gemm would cut into row blocks.
TEST_CASE("batched_matmul of one and of several large products: 1 and 2 threads give the same bits",
          "[core]") {
  const int64_t m = 200, n = 160, k = 72;
  for (const int64_t batch : {int64_t{1}, int64_t{3}}) {
    const Tensor a = testing::random_tensor({batch, k, m}, 3), b = testing::random_tensor({batch, k, n}, 4);
    const Tensor seed = testing::random_tensor({batch, m, n}, 5);
    auto run = [&](int threads) {
      set_num_threads(threads);
      Var va(a, true), vb(b, true);
      Var c = ops::batched_matmul(va, vb, true, false);
      c.backward(seed);
      return std::vector<Tensor>{c.value(), va.grad(), vb.grad()};
    };
    const int before = num_threads();
    const auto one = run(1), two = run(2);
    set_num_threads(before);
    INFO("batch " << batch);
    for (int t = 0; t < 3; ++t) CHECK(bitwise_equal(one[t], two[t]));
    double worst = 0;
    for (int64_t t = 0; t < batch; ++t)
      for (int64_t i = 0; i < m; i += 7)
        for (int64_t j = 0; j < n; ++j) {
          double s = 0;
          for (int64_t q = 0; q < k; ++q) s += double(a.at({t, q, i})) * b.at({t, q, j});
          worst = std::max(worst, std::abs(one[0].at({t, i, j}) - s));
        }
    CHECK(worst < 1e-4);
  }
}
