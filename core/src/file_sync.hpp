#pragma once
// Private helpers of the atomic writers (atomic_file.cpp, output_transaction.cpp): the
// directory a file is renamed in, and flushing a file or a directory to disk.

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <string>

namespace attend::detail {

// The directory of `path` ("." for a bare name), where its temporary file lives and is renamed.
inline std::string parent_directory(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

// Flush a file (flags O_RDONLY) or directory (O_RDONLY | O_DIRECTORY) to disk. File systems
// that cannot (EINVAL: pipes, some network and special file systems; EROFS) are not an error:
// there is nothing more we could do. errno is kept for the caller's message.
inline bool sync_path(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0 || errno == EINVAL || errno == EROFS;
  const int saved_errno = errno;
  ::close(fd);
  errno = saved_errno;
  return ok;
}

}  // namespace attend::detail
