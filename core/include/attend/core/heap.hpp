#pragma once
/// Heap tuning for programs that allocate and free the same large tensors every step.

#include <cstddef>

namespace attend {

/// Asks glibc malloc to serve blocks below 32 MiB from the heap and to keep up to 1 GiB of
/// freed memory at its top instead of returning it to the kernel, and turns on the cache of
/// large blocks below (for blocks of 32 MiB and more, which glibc always maps afresh). A
/// training step then reuses the pages of the previous step: no fresh mmap, no page faults,
/// no kernel zeroing (about a tenth of the CPU time of a small GAT epoch, a quarter of a GAT
/// layer's forward + backward at 100k nodes otherwise). Programs call it once at start; the
/// malloc settings are a no-op on other C libraries.
void keep_freed_memory();

namespace detail {
/// Tensor storage: `bytes` of memory for floats. Blocks of kLargeBlock bytes and more are
/// rounded up to one of eight sizes per doubling (at most 12.5 % more) and, when
/// keep_freed_memory() turned the large-block cache on, come from it (a block freed earlier in
/// the same size class; on a miss, cached blocks of other sizes are handed back first, as many
/// bytes as the new block's, so that large blocks in use and cached never hold more than the
/// most ever in use at once; heap.cpp), else from operator new. When the memory is not there
/// (or more than memory_budget_bytes() is asked for), throws attend::InputError naming the
/// size: the sizes come from the user's data and settings (a damaged file's shape, a model
/// file's widths), and "internal error: std::bad_alloc" said nothing of that.
void* allocate_storage(std::size_t bytes);
/// Gives back what allocate_storage returned. Large blocks are kept for reuse while the cache
/// holds at most kLargeBlockCacheLimit bytes (1 GiB, heap.cpp), the oldest handed back first
/// (thread-safe).
void release_storage(void* p, std::size_t bytes) noexcept;
inline constexpr std::size_t kLargeBlock = std::size_t{32} << 20;
}  // namespace detail

}  // namespace attend
