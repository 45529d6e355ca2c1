#pragma once
/// The memory budget: sizes that come from a user's data or settings (a model's widths, an
/// alignment's length, a number of blocks, a damaged file's shape) are checked against the
/// machine's memory before anything that large is allocated, so asking for too much is bad
/// input that names what asked (attend::InputError, exit 2), not std::bad_alloc from deep
/// inside a computation, nor an allocation that the sanitizers or the kernel's OOM killer end.

#include <cstddef>
#include <string>

namespace attend {

/// The most bytes one request may plan for: the machine's physical memory.
std::size_t memory_budget_bytes();

/// Throws attend::InputError("<what> needs X GiB of memory, more than this machine's Y GiB")
/// when `bytes` exceeds memory_budget_bytes(). `bytes` is a double so that products of sizes
/// given by users cannot overflow on the way here.
void require_memory(double bytes, const std::string& what);

}  // namespace attend
