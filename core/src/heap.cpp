#include "attend/core/heap.hpp"

#include <atomic>
#include <cstdio>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

#include "attend/core/error.hpp"
#include "attend/core/memory_budget.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace attend {

namespace {

/// Freed large blocks (capacity, pointer), reused by capacity; most recently freed last.
struct LargeBlockCache {
  std::mutex mutex;
  std::vector<std::pair<std::size_t, void*>> blocks;
  std::size_t held = 0;  ///< bytes in `blocks`
};

LargeBlockCache& cache() {
  static LargeBlockCache* c = new LargeBlockCache;  // never destroyed: tensors may outlive statics
  return *c;
}

std::atomic<bool> cache_on{false};

// The capacity of a large block asked for `bytes`: rounded up to the next of eight sizes per
// doubling (at most 12.5 % more), so that tensors whose shapes change a little from one
// mini-batch to the next (a sample's node count) share blocks. A function of `bytes` alone:
// release_storage, given the bytes asked for, finds the same capacity.
std::size_t large_block_capacity(std::size_t bytes) {
  const int log2 = 63 - __builtin_clzll(bytes);
  const std::size_t step = std::size_t{1} << (log2 - 3);
  return (bytes + step - 1) / step * step;
}

}  // namespace

void keep_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // the largest value glibc accepts on 64-bit
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
  cache_on.store(true);
}

namespace detail {

void* allocate_storage(std::size_t bytes) {
  // Checked only when over the budget: no message is built on the hot path.
  if (bytes > memory_budget_bytes()) require_memory(static_cast<double>(bytes), "a tensor");
  if (bytes >= kLargeBlock && cache_on.load(std::memory_order_relaxed)) {
    bytes = large_block_capacity(bytes);
    LargeBlockCache& c = cache();
    std::lock_guard<std::mutex> lock(c.mutex);
    for (auto it = c.blocks.rbegin(); it != c.blocks.rend(); ++it) {
      if (it->first != bytes) continue;
      void* p = it->second;
      c.held -= bytes;
      c.blocks.erase(std::next(it).base());
      return p;
    }
  }
  try {
    return ::operator new(bytes);
  } catch (const std::bad_alloc&) {
    char size[32];
    std::snprintf(size, sizeof(size), "%.3g GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
    throw InputError(std::string("out of memory: cannot allocate ") + size +
                     " for a tensor (the data or the model settings ask for more than this machine has)");
  }
}

void release_storage(void* p, std::size_t bytes) noexcept {
  if (p == nullptr) return;
  if (bytes >= kLargeBlock && cache_on.load(std::memory_order_relaxed)) {
    bytes = large_block_capacity(bytes);
    LargeBlockCache& c = cache();
    std::lock_guard<std::mutex> lock(c.mutex);
    while (!c.blocks.empty() && c.held + bytes > kLargeBlockCacheLimit) {  // oldest out first
      ::operator delete(c.blocks.front().second);
      c.held -= c.blocks.front().first;
      c.blocks.erase(c.blocks.begin());
    }
    if (bytes <= kLargeBlockCacheLimit) {
      c.blocks.emplace_back(bytes, p);
      c.held += bytes;
      return;
    }
  }
  ::operator delete(p);
}

}  // namespace detail

}  // namespace attend
