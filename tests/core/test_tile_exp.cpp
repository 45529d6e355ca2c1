#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "attend/core/fast_exp.hpp"
#include "ops/tile_exp.hpp"

using namespace attend;

TEST_CASE("tile_exp gives exp_approx's bits in every lane", "[core]") {
  // Every 2^-8 step over [-100, 100], the float neighbours of the limits -87 and 88 and of 0,
  // and -inf (the attention's masked logits), placed so each value visits several lanes.
  std::vector<float> xs;
  for (int i = -100 * 256; i <= 100 * 256; ++i) xs.push_back(static_cast<float>(i) / 256.0f);
  for (float x : {-87.0f, 88.0f, 0.0f}) {
    float below = x, above = x;
    for (int step = 0; step < 40; ++step) {
      xs.push_back(below = std::nextafter(below, -1000.0f));
      xs.push_back(above = std::nextafter(above, 1000.0f));
    }
  }
  xs.push_back(-std::numeric_limits<float>::infinity());
  while (xs.size() % (detail::kTileVec + 1) != 0) xs.push_back(1.0f);
  int64_t differ = 0;
  float first_differ = 0.0f;
  for (std::size_t start = 0; start + detail::kTileVec <= xs.size(); start += detail::kTileVec - 1) {
    const detail::TileVec y = detail::tile_exp(detail::tile_load(xs.data() + start));
    for (int64_t l = 0; l < detail::kTileVec; ++l) {
      const float lane = y[l], scalar = exp_approx(xs[start + l]);
      if (std::memcmp(&lane, &scalar, sizeof lane) != 0 && differ++ == 0) first_differ = xs[start + l];
    }
  }
  INFO("lanes that differ: " << differ << ", the first at x = " << first_differ);
  CHECK(differ == 0);
  const detail::TileVec zero = detail::tile_exp(detail::TileVec{} - std::numeric_limits<float>::infinity());
  CHECK(zero[0] == 0.0f);
}
