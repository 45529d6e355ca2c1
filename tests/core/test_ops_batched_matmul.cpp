#include <catch2/catch.hpp>

#include "attend/core/ops/batched_matmul.hpp"
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
