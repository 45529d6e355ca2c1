#include <catch2/catch.hpp>

#include <cstring>
#include <memory>
#include <vector>

#include "attend/core/error.hpp"
#include "attend/core/measure.hpp"

using attend::time_calls;

TEST_CASE("time_calls runs one warm-up call and then the timed ones", "[core]") {
  int calls = 0;
  time_calls(3, [&] { ++calls; });
  CHECK(calls == 4);
  calls = 0;
  time_calls(3, [&] { ++calls; }, /*warmup=*/false);
  CHECK(calls == 3);
  CHECK_THROWS_AS(time_calls(0, [] {}), attend::Error);
}

TEST_CASE("time_calls reports the median call, not the mean", "[core]") {
  // Call 1 of 3 timed calls burns 0.2 s of CPU, calls 2 and 3 do nothing: the median is an empty call.
  int call = 0;
  volatile double sink = 0;
  const attend::CallTimes t = time_calls(3, [&] {
    if (++call == 1) {
      const double start = attend::process_cpu_seconds();
      while (attend::process_cpu_seconds() - start < 0.2) sink = sink + 1.0;
    }
  }, /*warmup=*/false);
  CHECK(t.wall >= 0.0);
  CHECK(t.wall < 0.1);
  CHECK(t.cpu < 0.1);
}

TEST_CASE("process CPU time grows with work and peak memory with a touched allocation", "[core]") {
  const double cpu0 = attend::process_cpu_seconds();
  volatile double sink = 0;
  while (attend::process_cpu_seconds() - cpu0 < 0.02) sink = sink + 1.0;
  CHECK(attend::process_cpu_seconds() - cpu0 >= 0.02);

  const double rss0 = attend::peak_rss_mib();
  CHECK(rss0 > 0.0);
  // More than the peak so far, every page touched: the peak must rise whatever ran before.
  const size_t bytes = (static_cast<size_t>(rss0) + 64) << 20;
  std::unique_ptr<char[]> block(new char[bytes]);
  std::memset(block.get(), 1, bytes);
  CHECK(attend::peak_rss_mib() >= rss0 + 32.0);
  CHECK(block[bytes - 1] == 1);
}
