// channel_first_layer_norm (the triangle multiplication's layer norm of its channel-first
// products, AF2 Alg. 11 / 12 line 4) against ops::layer_norm of the permuted input, its
// gradients, and its thread invariance.
#include <catch2/catch.hpp>

#include "attend/bio/evoformer/channel_first_layer_norm.hpp"
#include "attend/core/ops/layer_norm.hpp"
#include "attend/core/ops/shape.hpp"
#include "grad_check.hpp"
#include "scoped_threads.hpp"
#include "fused_against_plain.hpp"

using namespace attend;

namespace {

Var plain(const std::vector<Var>& v) { return ops::layer_norm(ops::permute(v[0], {1, 2, 0}), v[1], v[2], 1e-5f); }

Var fused(const std::vector<Var>& v) { return bio::channel_first_layer_norm(v[0], v[1], v[2], 1e-5f); }

// x [5, 40, 30]: 1200 positions, so two blocks (1024 + 176) and a short last tile (176 = 2 x 64 + 48).
std::vector<Tensor> inputs(uint64_t seed) {
  return {testing::random_tensor({5, 40, 30}, seed), testing::random_tensor({5}, seed + 1),
          testing::random_tensor({5}, seed + 2)};
}


}  // namespace

TEST_CASE("channel_first_layer_norm equals layer_norm of the permuted input, gradients too", "[bio]") {
  testing::ScopedThreads threads(1);
  testing::require_fused_matches_plain(fused, plain, inputs(3));
}

TEST_CASE("channel_first_layer_norm gradients against finite differences", "[bio][grad]") {
  testing::ScopedThreads threads(1);
  const std::vector<Tensor> x = {testing::random_tensor({4, 9, 11}, 7), testing::random_tensor({4}, 8),
                                 testing::random_tensor({4}, 9)};  // 99 positions: one full tile and a short one
  const auto r = testing::check_gradients(fused, x);
  INFO(r.report);
  CHECK(r.ok);
}

TEST_CASE("channel_first_layer_norm: 1 and 2 threads give the same bits, bad shapes are refused", "[bio]") {
  const std::vector<Tensor> x = inputs(11);
  testing::require_same_bits_on_1_and_2_threads(fused, x);
  const Var bad(testing::random_tensor({4}, 1), false);  // gamma [4] against 5 channels
  std::vector<Var> v;
  for (const Tensor& t : x) v.emplace_back(t, false);
  REQUIRE_THROWS(bio::channel_first_layer_norm(v[0], bad, v[2]));
}
