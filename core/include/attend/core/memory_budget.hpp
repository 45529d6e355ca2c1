#pragma once
/// The memory budget: sizes that come from a user's data or settings (a model's widths, an
/// alignment's length, a number of blocks, a damaged file's shape) are checked against the
/// machine's memory before anything that large is allocated, so asking for too much is bad
/// input that names what asked (attend::InputError, exit 2), not std::bad_alloc from deep
/// inside a computation, nor an allocation that the sanitizers or the kernel's OOM killer end.

#include <cstddef>
#include <optional>
#include <string>

namespace attend {

/// The most bytes one request may plan for: the machine's physical memory, or the memory limit
/// of the process's control group when that is smaller (a container, a batch job).
std::size_t memory_budget_bytes();

/// The memory limit of this process's control group, or nullopt when none is set: the
/// smallest of cgroup v2's `memory.max` and cgroup v1's `memory/memory.limit_in_bytes` under
/// `root` (/sys/fs/cgroup), read at the top of the mount (what a container with its own cgroup
/// namespace sees) and at the group that `self_cgroup` (/proc/self/cgroup) names. "max" and
/// unreadable files set no limit; v1's "unlimited" is a huge number, which physical memory caps.
std::optional<std::size_t> cgroup_memory_limit(const std::string& root, const std::string& self_cgroup);

/// Throws attend::InputError("<what> needs X GiB of memory, more than the Y GiB this process
/// may use")
/// when `bytes` exceeds memory_budget_bytes(). `bytes` is a double so that products of sizes
/// given by users cannot overflow on the way here.
void require_memory(double bytes, const std::string& what);

}  // namespace attend
