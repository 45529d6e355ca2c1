#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "attend/core/parallel.hpp"

using namespace attend;

namespace {
// Three phases over 37 items, each reading what the phase before wrote at other items (a
// phase that started before the previous one ended would read stale values):
// a[i] = i + 1, b[i] = a[i] + a[36 - i], c[i] = b[i] * b[(i + 5) % 37].
std::vector<int64_t> three_phases(int threads) {
  constexpr int64_t kCount = 37;
  std::vector<int64_t> a(kCount, 0), b(kCount, 0), c(kCount, 0);
  const int saved = num_threads();
  set_num_threads(threads);
  parallel_for_phases(
      kCount, [&](int64_t i) { a[i] = i + 1; },
      [&](int64_t i) { b[i] = a[i] + a[kCount - 1 - i]; },
      [&](int64_t i) { c[i] = b[i] * b[(i + 5) % kCount]; });
  set_num_threads(saved);
  return c;
}
}  // namespace

TEST_CASE("parallel_for_phases ends each phase before the next one begins", "[core]") {
  const std::vector<int64_t> serial = three_phases(1);
  for (int64_t i = 0; i < 37; ++i) CHECK(serial[i] == 38 * 38);
  CHECK(three_phases(2) == serial);
  CHECK(three_phases(4) == serial);
}

TEST_CASE("parallel_for_phases rethrows the first exception and skips the later phases", "[core]") {
  for (int threads : {1, 2}) {
    const int saved = num_threads();
    set_num_threads(threads);
    std::atomic<int64_t> later_calls{0};
    auto failing = [](int64_t i) {
      if (i == 3) throw std::runtime_error("phase 1 failed");
    };
    auto later = [&](int64_t) { ++later_calls; };
    CHECK_THROWS_AS(parallel_for_phases(8, failing, later), std::runtime_error);
    set_num_threads(saved);
    CHECK(later_calls == 0);
  }
}
