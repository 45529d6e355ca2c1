#include "attend/core/output_transaction.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "attend/core/error.hpp"
#include "attend/core/output_path.hpp"
#include "file_sync.hpp"

namespace attend {

namespace {

thread_local OutputTransaction* g_open_transaction = nullptr;

// Exclusive flock on each of a set of directories, released when destroyed. The directories
// are locked in the order of their resolved paths, so two processes never wait on each other
// in a cycle. A file system without flock for directories (some network file systems) only
// loses the protection against concurrent writers.
class DirectoryLocks {
 public:
  explicit DirectoryLocks(const std::vector<std::string>& directories) {
    std::vector<std::string> resolved;
    for (const std::string& d : directories) {
      std::error_code error;
      const std::filesystem::path path = std::filesystem::canonical(d, error);
      resolved.push_back(error ? d : path.string());
    }
    std::sort(resolved.begin(), resolved.end());
    resolved.erase(std::unique(resolved.begin(), resolved.end()), resolved.end());
    for (const std::string& d : resolved) {
      const int fd = ::open(d.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (fd < 0) continue;
      while (::flock(fd, LOCK_EX) != 0 && errno == EINTR) {
      }
      fds_.push_back(fd);
    }
  }
  ~DirectoryLocks() {
    for (const int fd : fds_) ::close(fd);  // closing releases the lock
  }
  DirectoryLocks(const DirectoryLocks&) = delete;
  DirectoryLocks& operator=(const DirectoryLocks&) = delete;

 private:
  std::vector<int> fds_;
};


}  // namespace

OutputTransaction::OutputTransaction() {
  ATTEND_CHECK(g_open_transaction == nullptr, "an OutputTransaction is already open on this thread");
  g_open_transaction = this;
}

OutputTransaction::~OutputTransaction() {
  for (const File& f : files_) ::unlink(f.temp_path.c_str());
  g_open_transaction = nullptr;
}

OutputTransaction* OutputTransaction::current() { return g_open_transaction; }

void OutputTransaction::adopt(const std::string& temp_path, const std::string& destination) {
  ATTEND_CHECK(g_open_transaction == this, "OutputTransaction::adopt from a thread the transaction is not open on");
  for (File& f : files_) {
    if (f.destination != destination) continue;
    ::unlink(f.temp_path.c_str());
    f.temp_path = temp_path;
    return;
  }
  files_.push_back({temp_path, destination});
}

void OutputTransaction::commit() {
  std::vector<std::string> directories;
  for (const File& f : files_) directories.push_back(detail::parent_directory(f.destination));
  {
    const DirectoryLocks locks(directories);
    for (const File& f : files_) {
      const std::string problem = output_path_problem(f.destination);
      if (!problem.empty()) throw InputError(f.destination, 0, "cannot write: " + problem);
    }
    while (!files_.empty()) {
      const File& f = files_.front();
      if (std::rename(f.temp_path.c_str(), f.destination.c_str()) != 0) {
        throw InputError(f.destination, 0, "cannot rename " + f.temp_path + " onto it: " + std::strerror(errno));
      }
      files_.erase(files_.begin());
    }
  }
  std::sort(directories.begin(), directories.end());
  directories.erase(std::unique(directories.begin(), directories.end()), directories.end());
  // The renames are done; a failure to make them durable cannot undo them, so it is not reported.
  for (const std::string& d : directories) detail::sync_path(d, O_RDONLY | O_DIRECTORY);
}

}  // namespace attend
