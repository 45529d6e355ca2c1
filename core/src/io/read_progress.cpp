#include "attend/core/io/read_progress.hpp"

#include <filesystem>

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

FileReadProgress::FileReadProgress(const std::string& path) {
  if (ReadProgress::active() == nullptr) return;
  std::error_code error;
  const auto size = std::filesystem::file_size(path, error);
  if (!error) *this = FileReadProgress(std::filesystem::path(path).filename().string(), static_cast<int64_t>(size));
}

FileReadProgress::FileReadProgress(const std::string& name, int64_t stored_bytes) {
  const ReadProgress* reporting = ReadProgress::active();
  if (reporting == nullptr || stored_bytes < reporting->min_bytes()) return;
  total_mib_ = (stored_bytes + (1 << 20) - 1) >> 20;
  line_ = std::make_unique<ProgressLine>("reading " + name + " (MiB)", total_mib_, reporting->options());
}

void FileReadProgress::read_to(int64_t bytes) {
  if (!line_) return;
  const int64_t mib = bytes >> 20;
  if (mib > shown_mib_) line_->update(shown_mib_ = mib, {});
}

void FileReadProgress::finish() {
  if (line_ && shown_mib_ < total_mib_) line_->update(shown_mib_ = total_mib_, {}, true);
}

}  // namespace attend::io
