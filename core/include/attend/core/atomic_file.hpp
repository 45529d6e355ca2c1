#pragma once
/// AtomicOutput: write a file under a temporary name, then rename it onto its destination.
///
/// A reader of the destination sees either the previous file or the complete new one, never a
/// partial write: the writer fills `temp_path()` (any format: text, HDF5, PNG), then calls
/// `commit()`, which flushes the file to disk and renames it. If the AtomicOutput is destroyed
/// without a commit (an exception while writing), the temporary file is removed and the
/// destination is left as it was.

#include <string>

namespace attend {

class AtomicOutput {
 public:
  /// Prepare to write `destination`; the temporary path is `<destination>.tmp.<pid>.<n>`, in
  /// the same directory so that the final rename stays on one file system. Throws
  /// InputError when the destination's directory does not exist.
  explicit AtomicOutput(std::string destination);
  /// Removes the temporary file unless `commit()` succeeded.
  ~AtomicOutput();
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;

  /// Where the writer puts the new file (the caller creates it, and closes it before commit).
  const std::string& temp_path() const { return temp_path_; }
  /// The final path.
  const std::string& destination() const { return destination_; }
  bool committed() const { return committed_; }

  /// fsync the temporary file, rename it onto the destination (replacing any old file) and
  /// fsync the directory. Throws InputError when nothing was written or the rename fails (the
  /// temporary file is then still removed by the destructor). Call at most once.
  void commit();

 private:
  std::string destination_;
  std::string temp_path_;
  bool committed_ = false;
};

/// Write `content` to `path` through an AtomicOutput (a reader sees the old file or all of
/// the new one). Throws InputError when the directory is missing or the write fails.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace attend
