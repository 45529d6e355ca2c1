#include "attend/core/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "attend/core/error.hpp"

namespace attend {

namespace {

// Distinguishes the temporary files of one process. It only names files; no numeric result
// depends on it.
std::atomic<uint64_t> g_temp_counter{0};

std::string parent_directory(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

// Flush a file or directory to disk. File systems that cannot (EINVAL: pipes, some network
// and special file systems) are not an error: there is nothing more we could do.
bool sync_path(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0 || errno == EINVAL || errno == EROFS;
  const int saved_errno = errno;
  ::close(fd);
  errno = saved_errno;
  return ok;
}

}  // namespace

AtomicOutput::AtomicOutput(std::string destination) : destination_(std::move(destination)) {
  ATTEND_CHECK(!destination_.empty(), "AtomicOutput needs a destination path");
  const std::string directory = parent_directory(destination_);
  std::error_code error;
  if (!std::filesystem::is_directory(directory, error)) {
    throw InputError(destination_, 0, "cannot write: directory '" + directory + "' does not exist");
  }
  temp_path_ = destination_ + ".tmp." + std::to_string(::getpid()) + "." +
               std::to_string(g_temp_counter.fetch_add(1));
}

AtomicOutput::~AtomicOutput() {
  if (!committed_) ::unlink(temp_path_.c_str());
}

void AtomicOutput::commit() {
  ATTEND_CHECK(!committed_, "AtomicOutput::commit called twice for " << destination_);
  if (!std::filesystem::exists(temp_path_)) {
    throw InputError(destination_, 0, "nothing was written to the temporary file " + temp_path_);
  }
  if (!sync_path(temp_path_, O_RDONLY)) {
    throw InputError(destination_, 0,
                     "cannot flush " + temp_path_ + " to disk: " + std::strerror(errno));
  }
  if (std::rename(temp_path_.c_str(), destination_.c_str()) != 0) {
    throw InputError(destination_, 0,
                     "cannot rename " + temp_path_ + " onto it: " + std::strerror(errno));
  }
  committed_ = true;
  // Make the rename itself durable; a failure here cannot undo it, so it is not reported.
  sync_path(parent_directory(destination_), O_RDONLY | O_DIRECTORY);
}

void write_file_atomically(const std::string& path, const std::string& content) {
  AtomicOutput output(path);
  {
    std::ofstream out(output.temp_path(), std::ios::binary | std::ios::trunc);
    out << content;
    out.close();
    if (!out) throw InputError(path, 0, "cannot write the file");
  }
  output.commit();
}

}  // namespace attend
