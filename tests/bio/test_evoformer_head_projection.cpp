// project_to_heads, project_to_heads_jointly and project_from_heads (the projections of the Evoformer's gated
// attention, AF2 Alg. 7, 8, 13, 14) against the plain composition of ops, their gradients,
// and their thread invariance, for both batch axes.
#include <algorithm>

#include <catch2/catch.hpp>

#include "attend/bio/evoformer/head_projection.hpp"
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

// Batch rows, positions, channels, heads and channels per head of one test.
struct Sizes {
  int64_t B, N, C, H, c;
};

// 11 batch rows (two groups of 8), N = 5, C = 4, 3 heads of 2 channels.
constexpr Sizes kSmall{11, 5, 4, 3, 2};
constexpr int64_t kB = kSmall.B, kN = kSmall.N, kC = kSmall.C, kH = kSmall.H, kc = kSmall.c;
// The Evoformer's widths (C = 64, c = 32), where gemm runs the per-head products on its
// narrow register tiles; 9 batch rows (two groups).
constexpr Sizes kWide{9, 64, 64, 2, 32};

// x [B, N, C] or [N, B, C] -> the plain heads [B, H, N, c].
Var plain_to_heads(const std::vector<Var>& v, int axis, Sizes z = kSmall) {
  const Var x = axis == 0 ? v[0] : ops::permute(v[0], {1, 0, 2});  // [B, N, C]
  return ops::permute(ops::reshape(ops::linear(x, v[1], v[2]), {z.B, z.N, z.H, z.c}), {0, 2, 1, 3});
}

// o [B, H, N, c] -> the plain [B, N, C] or [N, B, C].
Var plain_from_heads(const std::vector<Var>& v, int axis, Sizes z = kSmall) {
  const Var y = ops::linear(ops::reshape(ops::permute(v[0], {0, 2, 1, 3}), {z.B, z.N, z.H * z.c}), v[1], v[2]);
  return axis == 0 ? y : ops::permute(y, {1, 0, 2});
}

std::vector<Tensor> to_inputs(int axis, uint64_t seed, Sizes z = kSmall) {
  const Shape x = axis == 0 ? Shape{z.B, z.N, z.C} : Shape{z.N, z.B, z.C};
  return {testing::random_tensor(x, seed), testing::random_tensor({z.C, z.H * z.c}, seed + 1),
          testing::random_tensor({z.H * z.c}, seed + 2)};
}

std::vector<Tensor> from_inputs(uint64_t seed, Sizes z = kSmall) {
  return {testing::random_tensor({z.B, z.H, z.N, z.c}, seed), testing::random_tensor({z.H * z.c, z.C}, seed + 1),
          testing::random_tensor({z.C}, seed + 2)};
}

// The wide case's sums run over up to 576 terms (a weight gradient over 9 x 64 rows): they
// reach 1.05 times the default tolerance (largest difference 1.5e-5; session 14), so ten
// times the default margin, which also covers other register tilings of gemm (AVX2's).
constexpr testing::FusedTolerance kWideTolerance{1e-4, 1e-4};

}  // namespace

TEST_CASE("project_to_heads and project_from_heads equal linear, reshape and permute, gradients too", "[bio]") {
  testing::ScopedThreads threads(1);
  for (int axis : {0, 1}) {
    INFO("batch axis " << axis);
    const auto fused_to = [axis](const std::vector<Var>& v) { return bio::project_to_heads(v[0], v[1], v[2], kH, axis); };
    const auto fused_from = [axis](const std::vector<Var>& v) { return bio::project_from_heads(v[0], v[1], v[2], axis); };
    const auto plain_to = [axis](const std::vector<Var>& v) { return plain_to_heads(v, axis); };
    const auto plain_from = [axis](const std::vector<Var>& v) { return plain_from_heads(v, axis); };
    testing::require_fused_matches_plain(fused_to, plain_to, to_inputs(axis, 3));
    testing::require_fused_matches_plain(fused_from, plain_from, from_inputs(5));
  }
}

TEST_CASE("project_to_heads and project_from_heads at the Evoformer's widths equal the plain ops", "[bio]") {
  for (int axis : {0, 1}) {
    INFO("batch axis " << axis);
    const auto fused_to = [axis](const std::vector<Var>& v) { return bio::project_to_heads(v[0], v[1], v[2], kWide.H, axis); };
    const auto fused_from = [axis](const std::vector<Var>& v) { return bio::project_from_heads(v[0], v[1], v[2], axis); };
    const auto plain_to = [axis](const std::vector<Var>& v) { return plain_to_heads(v, axis, kWide); };
    const auto plain_from = [axis](const std::vector<Var>& v) { return plain_from_heads(v, axis, kWide); };
    {
      testing::ScopedThreads threads(1);
      testing::require_fused_matches_plain(fused_to, plain_to, to_inputs(axis, 21, kWide), kWideTolerance);
      testing::require_fused_matches_plain(fused_from, plain_from, from_inputs(23, kWide), kWideTolerance);
    }
    testing::require_same_bits_on_1_and_2_threads(fused_from, from_inputs(23, kWide));
  }
}

TEST_CASE("project_to_heads and project_from_heads gradients against finite differences", "[bio][grad]") {
  testing::ScopedThreads threads(1);
  for (int axis : {0, 1}) {
    INFO("batch axis " << axis);
    const auto to = testing::check_gradients(
        [axis](const std::vector<Var>& v) { return bio::project_to_heads(v[0], v[1], v[2], kH, axis); }, to_inputs(axis, 7));
    INFO(to.report);
    CHECK(to.ok);
    const auto from = testing::check_gradients(
        [axis](const std::vector<Var>& v) { return bio::project_from_heads(v[0], v[1], v[2], axis); }, from_inputs(9));
    INFO(from.report);
    CHECK(from.ok);
  }
}

TEST_CASE("project_to_heads and project_from_heads: 1 and 2 threads give the same bits, bad shapes are refused",
          "[bio]") {
  for (int axis : {0, 1}) {
    const auto to = [axis](const std::vector<Var>& v) { return bio::project_to_heads(v[0], v[1], v[2], kH, axis); };
    const auto from = [axis](const std::vector<Var>& v) { return bio::project_from_heads(v[0], v[1], v[2], axis); };
    testing::require_same_bits_on_1_and_2_threads(to, to_inputs(axis, 11));
    testing::require_same_bits_on_1_and_2_threads(from, from_inputs(13));
  }
  const Var x(testing::random_tensor({kB, kN, kC}, 1), false);
  const Var w(testing::random_tensor({kC, 5}, 2), false);  // 5 columns: not a multiple of 3 heads
  REQUIRE_THROWS(bio::project_to_heads(x, w, Var(), kH, 0));
  REQUIRE_THROWS(bio::project_to_heads(x, Var(testing::random_tensor({kC, kH * kc}, 3), false), Var(), kH, 2));
}

namespace {

// x, four weights [C, H c] and biases for results 1 and 3 (results 0 and 2 have none, as q
// and v of the gated attention) -> the inputs of project_to_heads_jointly's tests.
std::vector<Tensor> joint_inputs(int axis, uint64_t seed, Sizes z = kSmall) {
  const Shape x = axis == 0 ? Shape{z.B, z.N, z.C} : Shape{z.N, z.B, z.C};
  std::vector<Tensor> in{testing::random_tensor(x, seed)};
  for (uint64_t p = 0; p < 4; ++p) in.push_back(testing::random_tensor({z.C, z.H * z.c}, seed + 1 + p));
  for (uint64_t p = 0; p < 2; ++p) in.push_back(testing::random_tensor({z.H * z.c}, seed + 5 + p));
  return in;
}

// v = joint_inputs' leaves -> the weights and biases of the four projections.
std::vector<Var> joint_weights(const std::vector<Var>& v) { return {v[1], v[2], v[3], v[4]}; }
std::vector<Var> joint_biases(const std::vector<Var>& v) { return {Var(), v[5], Var(), v[6]}; }

// The four results side by side on the last axis: [B, H, N, 4 c].
Var joint(const std::vector<Var>& v, int axis, Sizes z = kSmall) {
  return ops::concat(bio::project_to_heads_jointly(v[0], joint_weights(v), joint_biases(v), z.H, axis));
}

// The same from linear, reshape and permute, one projection at a time.
Var plain_joint(const std::vector<Var>& v, int axis, Sizes z = kSmall) {
  const std::vector<Var> w = joint_weights(v), b = joint_biases(v);
  std::vector<Var> parts;
  for (std::size_t p = 0; p < 4; ++p) parts.push_back(plain_to_heads({v[0], w[p], b[p]}, axis, z));
  return ops::concat(parts);
}

}  // namespace

TEST_CASE("project_to_heads_jointly equals four linears, reshapes and permutes, gradients too", "[bio]") {
  for (int axis : {0, 1}) {
    INFO("batch axis " << axis);
    const auto fused = [axis](const std::vector<Var>& v) { return joint(v, axis); };
    const auto plain = [axis](const std::vector<Var>& v) { return plain_joint(v, axis); };
    {
      testing::ScopedThreads threads(1);
      testing::require_fused_matches_plain(fused, plain, joint_inputs(axis, 31));
    }
    const auto fused_wide = [axis](const std::vector<Var>& v) { return joint(v, axis, kWide); };
    const auto plain_wide = [axis](const std::vector<Var>& v) { return plain_joint(v, axis, kWide); };
    testing::require_fused_matches_plain(fused_wide, plain_wide, joint_inputs(axis, 41, kWide), kWideTolerance);
    testing::require_same_bits_on_1_and_2_threads(fused, joint_inputs(axis, 51));
    testing::require_same_bits_on_1_and_2_threads(fused_wide, joint_inputs(axis, 61, kWide));
  }
}

TEST_CASE("project_to_heads_jointly gradients against finite differences", "[bio][grad]") {
  testing::ScopedThreads threads(1);
  for (int axis : {0, 1}) {
    INFO("batch axis " << axis);
    const auto result = testing::check_gradients([axis](const std::vector<Var>& v) { return joint(v, axis); },
                                                 joint_inputs(axis, 71));
    INFO(result.report);
    CHECK(result.ok);
  }
}

TEST_CASE("project_to_heads_jointly: unused results get no gradient, a backward without the last result throws",
          "[bio]") {
  testing::ScopedThreads threads(2);
  // Only results 1 and 3: the weights of 0 and 2 get zero gradients, the others the plain ones.
  const auto some = [](const std::vector<Var>& v) {
    const std::vector<Var> r = bio::project_to_heads_jointly(v[0], joint_weights(v), joint_biases(v), kH, 0);
    return ops::concat({r[1], r[3]});
  };
  const auto plain_some = [](const std::vector<Var>& v) {
    return ops::concat({plain_to_heads({v[0], v[2], v[5]}, 0), plain_to_heads({v[0], v[4], v[6]}, 0)});
  };
  const testing::OutputAndGradients got = testing::output_and_gradients(some, joint_inputs(0, 81));
  const testing::OutputAndGradients want = testing::output_and_gradients(plain_some, joint_inputs(0, 81));
  testing::require_close(got.out, want.out);
  for (std::size_t i : {0, 2, 4, 5, 6}) testing::require_close(got.grads[i], want.grads[i]);
  for (std::size_t i : {1, 3})
    REQUIRE(std::all_of(got.grads[i].begin(), got.grads[i].end(), [](float g) { return g == 0.0f; }));

  std::vector<Var> v;
  for (const Tensor& t : joint_inputs(0, 91)) v.emplace_back(t, true);
  const std::vector<Var> r = bio::project_to_heads_jointly(v[0], joint_weights(v), joint_biases(v), kH, 0);
  REQUIRE_THROWS(ops::sum(r[0]).backward());
  REQUIRE_THROWS(bio::project_to_heads_jointly(v[0], {v[1], v[2]}, {Var()}, kH, 0));  // two weights, one bias
  const Var narrow(testing::random_tensor({kC, kH}, 5), false);                          // H c = 3, not 6
  REQUIRE_THROWS(bio::project_to_heads_jointly(v[0], {v[1], narrow}, {Var(), Var()}, kH, 0));
}
