// gated_output_projection (the triangle multiplications' output, AF2 Alg. 11 / 12 lines 5-6)
// against the plain composition of ops, its gradients, and its thread invariance.
#include <catch2/catch.hpp>

#include "attend/bio/evoformer/channel_first_layer_norm.hpp"
#include "attend/bio/evoformer/gated_output_projection.hpp"
#include "attend/core/ops/activation.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/ops/matmul.hpp"
#include "fused_against_plain.hpp"
#include "grad_check.hpp"
#include "scoped_threads.hpp"

using namespace attend;

namespace {

constexpr float kEps = 1e-5f;

// The unfused composition: mul(sigmoid(linear(zn, wg, bg)), linear(channel_first_layer_norm(x), wp, bp)).
Var plain(const std::vector<Var>& v) {
  return ops::mul(ops::sigmoid(ops::linear(v[0], v[1], v[2])),
                  ops::linear(bio::channel_first_layer_norm(v[3], v[4], v[5], kEps), v[6], v[7]));
}

Var fused(const std::vector<Var>& v) {
  return bio::gated_output_projection(v[0], v[1], v[2], v[3], v[4], v[5], kEps, v[6], v[7]);
}

// zn [n0, n1, 4], x [5, n0, n1]: Kg = 4, C = 5, D = 3. At n0 = 2, n1 = 300: 600 positions, so
// two blocks (512 + 88).
std::vector<Tensor> inputs(uint64_t seed, int64_t n0 = 2, int64_t n1 = 300) {
  return {testing::random_tensor({n0, n1, 4}, seed), testing::random_tensor({4, 3}, seed + 1),
          testing::random_tensor({3}, seed + 2),     testing::random_tensor({5, n0, n1}, seed + 3),
          testing::random_tensor({5}, seed + 4),     testing::random_tensor({5}, seed + 5),
          testing::random_tensor({5, 3}, seed + 6),  testing::random_tensor({3}, seed + 7)};
}

}  // namespace

TEST_CASE("gated_output_projection equals the gate times the projection of the channel-first layer norm, "
          "gradients too", "[bio]") {
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
  testing::require_same_bits_on_1_and_2_threads(fused, x);
  std::vector<Var> v;
  for (const Tensor& t : x) v.emplace_back(t, false);
  const Var bad_positions(testing::random_tensor({5, 2, 299}, 1), false);  // 2 x 299 against zn's 2 x 300
  REQUIRE_THROWS(bio::gated_output_projection(v[0], v[1], v[2], bad_positions, v[4], v[5], kEps, v[6], v[7]));
  const Var bad_width(testing::random_tensor({5, 2}, 1), false);  // D = 2 against wg's 3
  REQUIRE_THROWS(bio::gated_output_projection(v[0], v[1], v[2], v[3], v[4], v[5], kEps, bad_width, v[7]));
  const Var bad_gamma(testing::random_tensor({4}, 1), false);  // [4] against C = 5
  REQUIRE_THROWS(bio::gated_output_projection(v[0], v[1], v[2], v[3], bad_gamma, v[5], kEps, v[6], v[7]));
}
