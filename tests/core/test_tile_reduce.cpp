#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "grad_check.hpp"
#include "ops/tile_reduce.hpp"

using namespace attend;

namespace {
// The tree of tile_sum written out: at distance h, lane l becomes v[l] + v[l ^ h].
float written_out_tree_sum(std::vector<float> v) {
  for (std::size_t h = v.size() / 2; h >= 1; h /= 2) {
    std::vector<float> next(v.size());
    for (std::size_t l = 0; l < v.size(); ++l) next[l] = v[l] + v[l ^ h];
    v = next;
  }
  return v[0];
}
}  // namespace

TEST_CASE("tile_sum adds the lanes in its fixed tree and tile_max finds the largest lane", "[core]") {
  const Tensor values = testing::random_tensor({64, detail::kTileVec}, 71, -1000.0f, 1000.0f);
  for (int64_t row = 0; row < 64; ++row) {
    std::vector<float> lanes(values.data() + row * detail::kTileVec, values.data() + (row + 1) * detail::kTileVec);
    if (row % 4 == 1) lanes[row % detail::kTileVec] = -std::numeric_limits<float>::infinity();
    if (row % 4 == 2) lanes[(row + 3) % detail::kTileVec] = std::numeric_limits<float>::quiet_NaN();
    const detail::TileVec v = detail::tile_load(lanes.data());
    float largest = -std::numeric_limits<float>::infinity();
    for (float x : lanes) largest = largest < x ? x : largest;  // a NaN lane is passed over
    INFO("row " << row);
    CHECK(detail::tile_max(v) == largest);
    if (row % 4 != 2) {
      const float sum = detail::tile_sum(v), expected = written_out_tree_sum(lanes);
      CHECK((sum == expected || (std::isinf(sum) && std::isinf(expected))));
    } else {
      CHECK(std::isnan(detail::tile_sum(v)));
    }
  }
}
