#pragma once
/// Progress while large input files are read ("reading edge.csv.gz (MiB) 120/400  3.2s"):
/// while a ReadProgress lives on a thread, every LineReader, every `.npy` read (read_npy) and
/// every `.npz` member read (ZipArchive::read) on that thread of at least `min_bytes` draws a ProgressLine of the MiB it has
/// read of the file as stored (compressed bytes for .gz). Loaders need no code of their own: a command puts one around
/// the loading it does (`attend convert`, `node-classify train`).

#include <cstdint>
#include <memory>
#include <string>

#include "attend/core/progress.hpp"

namespace attend::io {

class ReadProgress {
 public:
  /// Report reads of files of at least `min_bytes` (default 32 MiB: smaller ones load in
  /// about a second) with `options` (plain mode: a line every `options.every` MiB).
  explicit ReadProgress(ProgressOptions options, int64_t min_bytes = int64_t{32} << 20);
  /// Restores the ReadProgress that was active before this one (if any).
  ~ReadProgress();
  ReadProgress(const ReadProgress&) = delete;
  ReadProgress& operator=(const ReadProgress&) = delete;

  /// The innermost ReadProgress alive on this thread, or nullptr.
  static const ReadProgress* active();
  const ProgressOptions& options() const { return options_; }
  int64_t min_bytes() const { return min_bytes_; }

 private:
  ProgressOptions options_;
  int64_t min_bytes_;
  const ReadProgress* previous_;
};

/// The progress of reading one file: draws "reading NAME (MiB)" when a ReadProgress is active
/// on this thread at construction and the file has at least its min_bytes; otherwise nothing.
class FileReadProgress {
 public:
  explicit FileReadProgress(const std::string& path);
  /// The same for `stored_bytes` named `name` that are not a file of their own (a member of a
  /// `.npz` archive, "data.npz:x.npy").
  FileReadProgress(const std::string& name, int64_t stored_bytes);
  /// `bytes` of the file as stored have been read (a new step for every whole MiB).
  void read_to(int64_t bytes);
  /// The whole file has been read: draws the last step.
  void finish();

 private:
  std::unique_ptr<ProgressLine> line_;
  int64_t total_mib_ = 0, shown_mib_ = 0;
};

}  // namespace attend::io
