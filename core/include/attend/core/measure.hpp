#pragma once
/// Time and memory measurements for benchmarks (`attend bench` and the programs in
/// benchmarks/): medians of repeated calls, CPU time, peak resident memory.

#include <functional>

namespace attend {

/// CPU seconds this process has used so far, all its threads together.
double process_cpu_seconds();

/// Peak resident memory of this process so far, in MiB (0 where the system does not say).
double peak_rss_mib();

/// Seconds one call took, each the median over the timed calls.
struct CallTimes {
  double wall = 0;  ///< wall-clock seconds
  double cpu = 0;   ///< CPU seconds over all threads (steadier than wall time on a shared machine)
};

/// Calls `fn` `repeats` times (after one untimed warm-up call unless `warmup` is false) and
/// returns the median wall and CPU seconds of one call.
CallTimes time_calls(int repeats, const std::function<void()>& fn, bool warmup = true);

}  // namespace attend
