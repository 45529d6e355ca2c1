#include "openblas_one_thread.hpp"

#include <cblas.h>

#include <mutex>

namespace attend::detail {

namespace {
std::mutex scopes_mutex;
int open_scopes = 0;    // guarded by scopes_mutex
int found_threads = 1;  // OpenBLAS's count when the first of the open scopes opened
}  // namespace

OpenblasOneThread::OpenblasOneThread() {
  const std::lock_guard<std::mutex> lock(scopes_mutex);
  if (open_scopes++ > 0) return;
  found_threads = openblas_get_num_threads();
  if (found_threads != 1) openblas_set_num_threads(1);
}

OpenblasOneThread::~OpenblasOneThread() {
  const std::lock_guard<std::mutex> lock(scopes_mutex);
  if (--open_scopes == 0 && found_threads != 1) openblas_set_num_threads(found_threads);
}

}  // namespace attend::detail
