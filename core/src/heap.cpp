#include "attend/core/heap.hpp"

#include <cstdio>
#include <mutex>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "attend/core/error.hpp"
#include "attend/core/large_block_stats.hpp"
#include "attend/core/memory_budget.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace attend {

namespace {

/// The most bytes of freed large blocks kept for reuse: the forward tape of an Evoformer block
/// at n_seq 128, n_res 256 (32 blocks of 32 MiB, docs/performance.md, session 13) fits.
constexpr std::size_t kLargeBlockCacheLimit = std::size_t{1} << 30;

/// Freed large blocks (capacity, pointer), reused by capacity; most recently freed last.
struct LargeBlockCache {
  std::mutex mutex;
  std::vector<std::pair<std::size_t, void*>> blocks;
  std::size_t held = 0;          ///< bytes in `blocks`
  std::size_t live = 0;          ///< bytes of large blocks handed out and not yet released
  std::size_t fresh = 0;  ///< bytes of large blocks taken from operator new so far
};

LargeBlockCache& cache() {
  static LargeBlockCache* c = new LargeBlockCache;  // never destroyed: tensors may outlive statics
  return *c;
}

bool cache_on = false;  // guarded by cache().mutex

// The capacity of a large block asked for `bytes`: rounded up to the next of eight sizes per
// doubling (at most 12.5 % more), so that tensors whose shapes change a little from one
// mini-batch to the next (a sample's node count) share blocks. A function of `bytes` alone:
// release_storage, given the bytes asked for, finds the same capacity whether or not the cache
// was on when the block was made.
std::size_t large_block_capacity(std::size_t bytes) {
  const int log2 = 63 - __builtin_clzll(bytes);
  const std::size_t step = std::size_t{1} << (log2 - 3);
  return (bytes + step - 1) / step * step;
}

[[noreturn]] void throw_out_of_memory(std::size_t bytes) {
  char size[32];
  std::snprintf(size, sizeof(size), "%.3g GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
  throw InputError(std::string("out of memory: cannot allocate ") + size +
                   " for a tensor (the data or the model settings ask for more than this machine has)");
}

// A large block of `capacity` bytes: with the cache on, the most recently freed block of that
// capacity; else a new one, after handing cached blocks of other capacities back to the
// allocator, oldest first, until as many bytes as the new block's are gone (or none are left):
// the bytes of large blocks in use and cached together then never exceed the most ever in use
// at once, whatever the cache's limit.
void* allocate_large(std::size_t capacity) {
  LargeBlockCache& c = cache();
  std::vector<void*> handed_back;  // deleted outside the lock
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    if (cache_on) {
      for (auto it = c.blocks.rbegin(); it != c.blocks.rend(); ++it) {
        if (it->first != capacity) continue;
        void* p = it->second;
        c.held -= capacity;
        c.live += capacity;
        c.blocks.erase(std::next(it).base());
        return p;
      }
      std::size_t freed = 0, oldest = 0;
      for (; oldest < c.blocks.size() && freed < capacity; ++oldest) {
        freed += c.blocks[oldest].first;
        handed_back.push_back(c.blocks[oldest].second);
      }
      c.blocks.erase(c.blocks.begin(), c.blocks.begin() + static_cast<std::ptrdiff_t>(oldest));
      c.held -= freed;
    }
    c.live += capacity;
    c.fresh += capacity;
  }
  for (void* p : handed_back) ::operator delete(p);
  try {
    return ::operator new(capacity);
  } catch (const std::bad_alloc&) {
    std::lock_guard<std::mutex> lock(c.mutex);
    c.live -= capacity;
    c.fresh -= capacity;
  }
  throw_out_of_memory(capacity);
}

// Keeps a released large block while the cache then holds at most kLargeBlockCacheLimit bytes,
// handing the oldest blocks back first; with the cache off, deletes it.
void release_large(void* p, std::size_t capacity) noexcept {
  LargeBlockCache& c = cache();
  std::vector<void*> handed_back;
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    c.live -= capacity;
    if (cache_on && capacity <= kLargeBlockCacheLimit) {
      std::size_t oldest = 0;
      while (c.held + capacity > kLargeBlockCacheLimit) {
        c.held -= c.blocks[oldest].first;
        handed_back.push_back(c.blocks[oldest].second);
        ++oldest;
      }
      c.blocks.erase(c.blocks.begin(), c.blocks.begin() + static_cast<std::ptrdiff_t>(oldest));
      c.blocks.emplace_back(capacity, p);
      c.held += capacity;
    } else {
      handed_back.push_back(p);
    }
  }
  for (void* q : handed_back) ::operator delete(q);
}

}  // namespace

void keep_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // the largest value glibc accepts on 64-bit
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
  std::lock_guard<std::mutex> lock(cache().mutex);
  cache_on = true;
}

namespace detail {

void* allocate_storage(std::size_t bytes) {
  // Checked only when over the budget: no message is built on the hot path.
  if (bytes > memory_budget_bytes()) require_memory(static_cast<double>(bytes), "a tensor");
  if (bytes >= kLargeBlock) return allocate_large(large_block_capacity(bytes));
  try {
    return ::operator new(bytes);
  } catch (const std::bad_alloc&) {
    throw_out_of_memory(bytes);
  }
}

void release_storage(void* p, std::size_t bytes) noexcept {
  if (p == nullptr) return;
  if (bytes >= kLargeBlock) {
    release_large(p, large_block_capacity(bytes));
  } else {
    ::operator delete(p);
  }
}

LargeBlockStats large_block_stats() {
  LargeBlockCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return {c.live, c.held, c.fresh};
}

}  // namespace detail

}  // namespace attend
