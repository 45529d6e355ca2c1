// relu_feed_forward (the transitions' two-layer ReLU feed-forward, AF2 Alg. 9 / 15 lines 2-3)
// against the plain composition of ops, its gradients, and its thread invariance.
#include <catch2/catch.hpp>

#include "attend/bio/evoformer/relu_feed_forward.hpp"
#include "attend/core/ops/activation.hpp"
#include "attend/core/ops/matmul.hpp"
#include "attend/core/parallel.hpp"
#include "fused_against_plain.hpp"
#include "grad_check.hpp"
#include "scoped_threads.hpp"

using namespace attend;

namespace {

// The unfused composition: linear(relu(linear(x, w1, b1)), w2, b2).
Var plain(const std::vector<Var>& v) { return ops::linear(ops::relu(ops::linear(v[0], v[1], v[2])), v[3], v[4]); }

Var fused(const std::vector<Var>& v) { return bio::relu_feed_forward(v[0], v[1], v[2], v[3], v[4]); }

// x [2, 300, 4]: 600 rows, so two row blocks (512 + 88); K = 4, H = 6, C = 3. The biases
// straddle zero so that some hidden units are inactive.
std::vector<Tensor> inputs(uint64_t seed, Shape x_shape = {2, 300, 4}) {
  return {testing::random_tensor(x_shape, seed), testing::random_tensor({4, 6}, seed + 1),
          testing::random_tensor({6}, seed + 2), testing::random_tensor({6, 3}, seed + 3),
          testing::random_tensor({3}, seed + 4)};
}

}  // namespace

TEST_CASE("relu_feed_forward equals linear, relu, linear, gradients too", "[bio]") {
  testing::ScopedThreads threads(1);
  testing::require_fused_matches_plain(fused, plain, inputs(3));
}

TEST_CASE("relu_feed_forward gradients against finite differences", "[bio][grad]") {
  // a seed with no pre-activation within the finite-difference step of the ReLU's kink, where
  // the numeric derivative means nothing (seed 29, for one, has one)
  testing::ScopedThreads threads(1);
  const auto r = testing::check_gradients(fused, inputs(13, {3, 5, 4}));
  INFO(r.report);
  CHECK(r.ok);
}

TEST_CASE("relu_feed_forward: 1 and 2 threads give the same bits, bad shapes are refused", "[bio]") {
  const std::vector<Tensor> x = inputs(11);
  testing::require_same_bits_on_1_and_2_threads(fused, x);
  std::vector<Var> v;
  for (const Tensor& t : x) v.emplace_back(t, false);
  const Var bad(testing::random_tensor({5, 3}, 1), false);  // w2 [5, 3] against H = 6
  REQUIRE_THROWS(bio::relu_feed_forward(v[0], v[1], v[2], bad, v[4]));
}
