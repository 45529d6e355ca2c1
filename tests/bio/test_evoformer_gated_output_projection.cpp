// gated_output_projection (the triangle multiplications' gated output, AF2 Alg. 11 / 12 line 6)
// against the plain composition of ops, its gradients, and its thread invariance.
#include <catch2/catch.hpp>

#include "attend/bio/evoformer/gated_output_projection.hpp"
#include "attend/core/ops/activation.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/ops/matmul.hpp"
#include "fused_against_plain.hpp"
#include "grad_check.hpp"
#include "scoped_threads.hpp"

using namespace attend;

namespace {

// The unfused composition: mul(sigmoid(linear(zn, wg, bg)), linear(xn, wp, bp)).
Var plain(const std::vector<Var>& v) {
  return ops::mul(ops::sigmoid(ops::linear(v[0], v[1], v[2])), ops::linear(v[3], v[4], v[5]));
}

Var fused(const std::vector<Var>& v) { return bio::gated_output_projection(v[0], v[1], v[2], v[3], v[4], v[5]); }

// zn [2, 300, 4] and xn [2, 300, 5]: 600 rows, so two row blocks (512 + 88); Kg = 4, Kp = 5,
// C = 3.
std::vector<Tensor> inputs(uint64_t seed, int64_t a = 2, int64_t b = 300) {
  return {testing::random_tensor({a, b, 4}, seed),     testing::random_tensor({4, 3}, seed + 1),
          testing::random_tensor({3}, seed + 2),       testing::random_tensor({a, b, 5}, seed + 3),
          testing::random_tensor({5, 3}, seed + 4),    testing::random_tensor({3}, seed + 5)};
}

}  // namespace

TEST_CASE("gated_output_projection equals mul of sigmoid of linear and linear, gradients too", "[bio]") {
  testing::ScopedThreads threads(1);
  testing::require_fused_matches_plain(fused, plain, inputs(3));
}

TEST_CASE("gated_output_projection gradients against finite differences", "[bio][grad]") {
  testing::ScopedThreads threads(1);
  const auto r = testing::check_gradients(fused, inputs(13, 3, 5));
  INFO(r.report);
  CHECK(r.ok);
}

TEST_CASE("gated_output_projection: 1 and 2 threads give the same bits, bad shapes are refused", "[bio]") {
  const std::vector<Tensor> x = inputs(11);
  testing::OutputAndGradients one, two;
  {
    testing::ScopedThreads threads(1);
    one = testing::output_and_gradients(fused, x);
  }
  {
    testing::ScopedThreads threads(2);
    two = testing::output_and_gradients(fused, x);
  }
  REQUIRE(std::equal(one.out.begin(), one.out.end(), two.out.begin()));
  for (std::size_t i = 0; i < x.size(); ++i)
    REQUIRE(std::equal(one.grads[i].begin(), one.grads[i].end(), two.grads[i].begin()));
  std::vector<Var> v;
  for (const Tensor& t : x) v.emplace_back(t, false);
  const Var bad_rows(testing::random_tensor({2, 299, 5}, 1), false);  // 598 rows against zn's 600
  REQUIRE_THROWS(bio::gated_output_projection(v[0], v[1], v[2], bad_rows, v[4], v[5]));
  const Var bad_width(testing::random_tensor({5, 2}, 1), false);  // C = 2 against wg's 3
  REQUIRE_THROWS(bio::gated_output_projection(v[0], v[1], v[2], v[3], bad_width, v[5]));
}
