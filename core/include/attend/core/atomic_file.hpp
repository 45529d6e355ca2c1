#pragma once
/// AtomicOutput: write a file under a temporary name, then rename it onto its destination.
///
/// A reader of the destination sees either the previous file or the complete new one, never a
/// partial write: the writer fills `temp_path()` (any format: text, HDF5, PNG), then calls
/// `commit()`, which flushes the file to disk and renames it. If the AtomicOutput is destroyed
/// without a commit (an exception while writing), the temporary file is removed and the
/// destination is left as it was. While an OutputTransaction is open on the thread
/// (output_transaction.hpp), `commit()` hands the finished file to it instead, and the
/// transaction renames all its files together.
///
/// The temporary file is hidden and names its writer: `.<name>.tmp.<host>.<pid>.<n>` beside
/// the destination `<name>` (the same directory keeps the rename on one file system). A process
/// killed while writing cannot remove its temporary file, so each new AtomicOutput first removes
/// the temporary files in its directory whose writer, a process of this host, no longer runs.
/// Earlier versions wrote `<name>.tmp.<pid>.<n>`, visible and without the host; a new
/// AtomicOutput of `<name>` removes those of its own destination whose writer no longer runs.

#include <string>

namespace attend {

class AtomicOutput {
 public:
  /// Prepare to write `destination` and remove the temporary files of dead writers beside it.
  /// Throws InputError when the destination cannot be an output (output_path.hpp: its
  /// directory does not exist, it is a directory, a device, a fifo or a socket).
  explicit AtomicOutput(std::string destination);
  /// Removes the temporary file unless `commit()` succeeded.
  ~AtomicOutput();
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;

  /// Where the writer puts the new file (the caller creates it, and closes it before commit).
  const std::string& temp_path() const { return temp_path_; }
  /// The final path.
  const std::string& destination() const { return destination_; }
  /// Whether `commit()` succeeded: the file was renamed, or handed to the open transaction.
  bool committed() const { return committed_; }

  /// fsync the temporary file, then rename it onto the destination (replacing any old file)
  /// and fsync the directory, or hand it to the OutputTransaction open on this thread. Throws
  /// InputError when nothing was written or the rename fails (the temporary file is then still
  /// removed by the destructor). Call at most once.
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
