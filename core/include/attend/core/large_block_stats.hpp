#pragma once
/// What the large-block cache of heap.hpp holds and has allocated anew, for tests and
/// benchmarks (not included by tensor.hpp, so that every file need not see it).

#include <cstddef>

namespace attend::detail {

/// Bytes of large blocks (kLargeBlock and more, heap.hpp), counted at their capacity.
struct LargeBlockStats {
  std::size_t live = 0;    ///< handed out by allocate_storage and not yet released
  std::size_t cached = 0;  ///< released and kept for reuse
  std::size_t fresh = 0;   ///< allocated anew since the start, not from the cache (pages the kernel faults in and zeroes on first touch)
};

/// The counts now (thread-safe).
LargeBlockStats large_block_stats();

}  // namespace attend::detail
