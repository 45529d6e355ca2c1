// gated_projection (the triangle multiplication's gated edges, AF2 Alg. 11 / 12 lines 2-3)
// against the plain composition of ops, its gradients, and its thread invariance.
#include <catch2/catch.hpp>

#include "attend/bio/evoformer/gated_projection.hpp"
#include "attend/core/ops/activation.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/ops/matmul.hpp"
#include "attend/core/ops/reduction.hpp"
#include "attend/core/ops/shape.hpp"
#include "attend/core/parallel.hpp"
#include "grad_check.hpp"
#include "scoped_threads.hpp"
#include "fused_against_plain.hpp"

using namespace attend;

namespace {

// The unfused composition: permute(sigmoid(x Wg + bg) * (x Wv + bv), {2, 0, 1}).
Var plain(const std::vector<Var>& v) {
  return ops::permute(ops::mul(ops::sigmoid(ops::linear(v[0], v[1], v[2])), ops::linear(v[0], v[3], v[4])), {2, 0, 1});
}

Var fused(const std::vector<Var>& v) { return bio::gated_projection(v[0], v[1], v[2], v[3], v[4]); }

// x [40, 30, 4]: 1200 rows, so two row blocks (1024 + 176); c = 3.
std::vector<Tensor> inputs(uint64_t seed) {
  return {testing::random_tensor({40, 30, 4}, seed), testing::random_tensor({4, 3}, seed + 1),
          testing::random_tensor({3}, seed + 2), testing::random_tensor({4, 3}, seed + 3),
          testing::random_tensor({3}, seed + 4)};
}


}  // namespace

TEST_CASE("gated_projection equals the composition of linear, sigmoid, mul and permute, gradients too", "[bio]") {
  testing::ScopedThreads threads(1);
  testing::require_fused_matches_plain(fused, plain, inputs(3));
}

TEST_CASE("gated_projection gradients against finite differences", "[bio][grad]") {
  testing::ScopedThreads threads(1);
  const auto r = testing::check_gradients(fused, inputs(7));
  INFO(r.report);
  CHECK(r.ok);
}

TEST_CASE("gated_projection: 1 and 2 threads give the same bits, bad shapes are refused", "[bio]") {
  const std::vector<Tensor> x = inputs(11);
  testing::require_same_bits_on_1_and_2_threads(fused, x);
  const Var bad(testing::random_tensor({5, 4}, 1), false);  // w_value [5, 4] against w_gate [4, 3]
  std::vector<Var> v;
  for (const Tensor& t : x) v.emplace_back(t, false);
  REQUIRE_THROWS(bio::gated_projection(v[0], v[1], v[2], bad, v[4]));
}
