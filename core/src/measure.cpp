#include "attend/core/measure.hpp"

#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "attend/core/error.hpp"

namespace attend {

double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double peak_rss_mib() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0.0;
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

CallTimes time_calls(int repeats, const std::function<void()>& fn, bool warmup) {
  ATTEND_CHECK(repeats > 0, "time_calls needs at least one timed call, got " << repeats);
  if (warmup) fn();
  std::vector<double> walls, cpus;
  for (int r = 0; r < repeats; ++r) {
    const double cpu0 = process_cpu_seconds();
    const auto wall0 = std::chrono::steady_clock::now();
    fn();
    walls.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count());
    cpus.push_back(process_cpu_seconds() - cpu0);
  }
  auto median = [](std::vector<double>& v) {
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
  };
  return {median(walls), median(cpus)};
}

}  // namespace attend
