// LruRowCache: least recently used rows go first, and the row storage stays within budget.
#include <catch2/catch.hpp>

#include <vector>

#include "attend/core/lru_row_cache.hpp"

using namespace attend;

namespace {
std::vector<float> row_of(int64_t id) { return {static_cast<float>(id), static_cast<float>(-id), 0.5f}; }
}  // namespace

TEST_CASE("the LRU row cache evicts the least recently used row", "[core]") {
  LruRowCache cache(10, 3, 3 * 3 * sizeof(float));  // room for 3 rows of 3 floats
  REQUIRE(cache.capacity_rows() == 3);
  for (int64_t id : {4, 7, 2}) cache.insert(id, row_of(id).data());
  REQUIRE(cache.find(4) != nullptr);  // 4 becomes the most recent: 7 is now the oldest
  cache.insert(9, row_of(9).data());
  CHECK(cache.find(7) == nullptr);
  for (int64_t id : {4, 2, 9}) {
    const float* row = cache.find(id);
    REQUIRE(row != nullptr);
    CHECK(std::vector<float>(row, row + 3) == row_of(id));
  }
  CHECK(cache.size() == 3);
  CHECK(cache.bytes() == 3 * 3 * static_cast<int64_t>(sizeof(float)));
}

TEST_CASE("the LRU row cache never holds more than its budget", "[core]") {
  const int64_t width = 5;
  for (int64_t budget : {int64_t{0}, int64_t{19}, int64_t{20}, int64_t{1000}, int64_t{100000}}) {
    LruRowCache cache(5000, width, budget);
    CHECK(cache.capacity_rows() == std::min<int64_t>(budget / (width * 4), 5000));
    std::vector<float> row(width);
    for (int64_t step = 0; step < 20000; ++step) {
      const int64_t id = (step * 7919) % 5000;
      row[0] = static_cast<float>(id);
      if (const float* hit = cache.find(id)) {
        CHECK(hit[0] == static_cast<float>(id));
      } else {
        cache.insert(id, row.data());
      }
      REQUIRE(cache.bytes() <= budget);
      REQUIRE(cache.size() <= cache.capacity_rows());
    }
  }
}
