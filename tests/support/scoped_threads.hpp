#pragma once
// A scoped OpenMP thread count for tests.

#include "attend/core/parallel.hpp"

namespace attend::testing {

/// Sets the thread count to `n` (set_num_threads) for the life of the object and restores the
/// previous count on destruction. Tests whose subject is not threading use it with n = 1:
/// on an oversubscribed machine every parallel region of a tiny model can cost a scheduler
/// time slice with 2 spinning threads (observed 40x slower), while thread invariance has
/// its own tests.
class ScopedThreads {
 public:
  explicit ScopedThreads(int n) : saved_(num_threads()) { set_num_threads(n); }
  ~ScopedThreads() { set_num_threads(saved_); }
  ScopedThreads(const ScopedThreads&) = delete;
  ScopedThreads& operator=(const ScopedThreads&) = delete;

 private:
  int saved_;
};

}  // namespace attend::testing
