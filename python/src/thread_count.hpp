#pragma once
// The `threads=` argument of the Python calls: attend's thread count for one call.

#include <optional>

#include "attend/core/error.hpp"
#include "attend/core/parallel.hpp"

namespace attend::python {

/// Sets the thread count (none: leaves it) and restores the previous count when destroyed.
class ScopedThreadCount {
 public:
  explicit ScopedThreadCount(std::optional<int> threads) : before_(num_threads()) {
    if (threads && *threads < 1) throw InputError("threads must be at least 1, got " + std::to_string(*threads));
    if (threads) set_num_threads(*threads);
  }
  ~ScopedThreadCount() { set_num_threads(before_); }
  ScopedThreadCount(const ScopedThreadCount&) = delete;
  ScopedThreadCount& operator=(const ScopedThreadCount&) = delete;

 private:
  int before_;
};

}  // namespace attend::python
