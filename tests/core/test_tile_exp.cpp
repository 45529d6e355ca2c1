#include <catch2/catch.hpp>
#include <bit>
#include <cmath>
#include <cstdint>
#include <algorithm>
#include <limits>
#include <vector>

#include "attend/core/fast_exp.hpp"
#include "ops/tile_exp.hpp"

using namespace attend;

namespace {

/// Counts into `differ` the floats of xs (a multiple of kTileVec long) that get other bits from
/// tile_exp, register by register, than from exp_approx; the first such x goes to first_differ.
/// `tile` and `scalar` are scratch space for the two results.
void count_lanes_unlike_exp_approx(const std::vector<float>& xs, int64_t& differ, float& first_differ,
                                   std::vector<float>& tile, std::vector<float>& scalar) {
  tile.resize(xs.size());
  scalar.resize(xs.size());
  for (std::size_t start = 0; start < xs.size(); start += detail::kTileVec)
    detail::tile_store(tile.data() + start, detail::tile_exp(detail::tile_load(xs.data() + start)));
  for (std::size_t i = 0; i < xs.size(); ++i) scalar[i] = exp_approx(xs[i]);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    if (std::bit_cast<uint32_t>(tile[i]) != std::bit_cast<uint32_t>(scalar[i]) && differ++ == 0)
      first_differ = xs[i];
  }
}

}  // namespace

TEST_CASE("tile_exp gives exp_approx's bits on every float in [-88, 88]", "[core]") {
  // All 2.2e9 of them, a buffer at a time, walking the bit patterns from +0 up to 88 and from
  // -0 down to -88. Both sides name their fused multiply-adds, so no compiler flag may change
  // this (-ffp-contract=off, or -O1, where GCC contracts nothing).
  const uint32_t limit = std::bit_cast<uint32_t>(88.0f);
  const uint32_t chunk = 1u << 20;
  std::vector<float> xs(chunk), tile(chunk), scalar(chunk);
  int64_t differ = 0;
  float first_differ = 0.0f;
  for (const uint32_t sign : {0u, 0x80000000u}) {
    for (uint32_t start = 0; start <= limit; start += chunk) {
      const uint32_t count = std::min(chunk, limit + 1 - start);
      xs.resize(count);
      for (uint32_t i = 0; i < count; ++i) xs[i] = std::bit_cast<float>(sign | (start + i));
      while (xs.size() % detail::kTileVec != 0) xs.push_back(xs.back());
      count_lanes_unlike_exp_approx(xs, differ, first_differ, tile, scalar);
    }
  }
  INFO("floats that differ: " << differ << ", the first at x = " << first_differ);
  CHECK(differ == 0);
}

TEST_CASE("tile_exp gives exp_approx's bits outside [-88, 88] and in every lane", "[core]") {
  // Both sides of the clamps and -inf (the attention's masked logits), placed at an odd stride
  // so each value visits several lanes.
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> xs;
  for (int i = -1000; i <= 1000; ++i) xs.push_back(static_cast<float>(i) / 8.0f);
  for (const float x : {-1e30f, 1e30f, -inf, inf}) xs.push_back(x);
  std::vector<float> shifted;
  for (int64_t lane = 0; lane < detail::kTileVec; ++lane) {
    shifted.insert(shifted.end(), xs.begin() + lane, xs.end());
    while (shifted.size() % detail::kTileVec != 0) shifted.push_back(1.0f);
  }
  float first_differ = 0.0f;
  std::vector<float> tile, scalar;
  int64_t differ = 0;
  count_lanes_unlike_exp_approx(shifted, differ, first_differ, tile, scalar);
  INFO("lanes that differ: " << differ << ", the first at x = " << first_differ);
  CHECK(differ == 0);
  const detail::TileVec zero = detail::tile_exp(detail::TileVec{} - inf);
  CHECK(zero[0] == 0.0f);
}
