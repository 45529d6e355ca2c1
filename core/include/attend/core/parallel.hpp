#pragma once
/// One level of OpenMP parallelism with exceptions carried out of the region.
///
/// Determinism rule: work is always cut into pieces whose boundaries depend only on the
/// problem size (never on the thread count), and every output element is written by exactly
/// one piece, so results are bit-identical for any number of threads.

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>

namespace attend {

/// Threads that parallel regions use (OMP_NUM_THREADS or `set_num_threads`).
int num_threads();
/// Set the thread count for subsequent parallel regions (n >= 1).
void set_num_threads(int n);

/// Call `fn(i)` for every i in [begin, end), rows split statically over threads. The first
/// exception thrown by any call is rethrown on the calling thread after the region ends.
/// Inside an existing parallel region it runs serially (one level of parallelism).
template <class Fn>
void parallel_for(int64_t begin, int64_t end, Fn&& fn) {
  if (end <= begin) return;
  if (omp_in_parallel() || end - begin == 1) {
    for (int64_t i = begin; i < end; ++i) fn(i);
    return;
  }
  std::exception_ptr error;
  std::mutex error_mutex;
#pragma omp parallel for schedule(static)
  for (int64_t i = begin; i < end; ++i) {
    try {
      fn(i);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
}

/// Call each of `phases` as `phase(i)` for every i in [0, count), one phase after the other
/// (every call of a phase ends before the next phase begins), each split over threads as
/// parallel_for splits it, all in one parallel region: one fork and join instead of one per
/// phase. After a call throws, later calls are skipped; the first exception is rethrown on the
/// calling thread. Inside an existing parallel region it runs serially.
template <class... Phases>
void parallel_for_phases(int64_t count, Phases&&... phases) {
  if (count <= 0) return;
  if (omp_in_parallel() || count == 1) {
    auto run_serially = [count](auto& phase) {
      for (int64_t i = 0; i < count; ++i) phase(i);
    };
    (run_serially(phases), ...);
    return;
  }
  std::exception_ptr error;
  std::mutex error_mutex;
  std::atomic<bool> failed{false};
  auto run_shared = [&](auto& phase) {  // an orphaned worksharing loop: ends with a barrier
#pragma omp for schedule(static)
    for (int64_t i = 0; i < count; ++i) {
      if (failed.load(std::memory_order_relaxed)) continue;
      try {
        phase(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        failed.store(true, std::memory_order_relaxed);
      }
    }
  };
#pragma omp parallel
  { (run_shared(phases), ...); }
  if (error) std::rethrow_exception(error);
}

/// Call `fn(lo, hi)` on consecutive blocks of `block` indices covering [0, n). Block edges
/// depend on `n` and `block` only, so the work split is the same for any thread count.
template <class Fn>
void parallel_for_blocks(int64_t n, int64_t block, Fn&& fn) {
  if (n <= 0) return;
  block = std::max<int64_t>(block, 1);
  const int64_t n_blocks = (n + block - 1) / block;
  parallel_for(0, n_blocks, [&](int64_t b) {
    const int64_t lo = b * block;
    fn(lo, std::min(n, lo + block));
  });
}

}  // namespace attend
