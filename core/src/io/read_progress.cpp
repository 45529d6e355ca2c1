#include "attend/core/io/read_progress.hpp"

namespace attend::io {

namespace {
thread_local const ReadProgress* innermost = nullptr;
}  // namespace

ReadProgress::ReadProgress(ProgressOptions options, int64_t min_bytes)
    : options_(options), min_bytes_(min_bytes), previous_(innermost) {
  innermost = this;
}

ReadProgress::~ReadProgress() { innermost = previous_; }

const ReadProgress* ReadProgress::active() { return innermost; }

}  // namespace attend::io
