#include "attend/core/atomic_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "attend/core/error.hpp"
#include "attend/core/output_path.hpp"
#include "attend/core/output_transaction.hpp"
#include "file_sync.hpp"

namespace attend {

using detail::parent_directory;
using detail::sync_path;

namespace {

// Distinguishes the temporary files of one process. It only names files; no numeric result
// depends on it.
std::atomic<uint64_t> g_temp_counter{0};

// The longest file name (NAME_MAX of Linux file systems).
constexpr std::size_t kMaxNameBytes = 255;

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

// The marker between a destination's name and the writer's process id: `.tmp.<host>.`.
std::string temp_marker() { return ".tmp." + host_name() + "."; }

// Removes the last `.<digits>` field of `name` and returns the digits, or "" when there is none.
std::string pop_number(std::string& name) {
  const std::size_t dot = name.rfind('.');
  if (dot == std::string::npos || dot + 1 == name.size()) return "";
  for (std::size_t i = dot + 1; i < name.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return "";
  }
  std::string digits = name.substr(dot + 1);
  name.resize(dot);
  return digits;
}

// The process id of the writer when `name` is one of our temporary files on this host
// (`.<name>.tmp.<host>.<pid>.<n>`), else 0.
pid_t temp_file_writer(std::string name, const std::string& marker) {
  if (name.empty() || name[0] != '.') return 0;
  if (pop_number(name).empty()) return 0;
  const std::string pid = pop_number(name);
  if (pid.empty() || pid.size() > 9) return 0;
  name += '.';
  if (name.size() <= marker.size() + 1 || name.compare(name.size() - marker.size(), marker.size(), marker) != 0) {
    return 0;
  }
  return static_cast<pid_t>(std::stol(pid));
}

// The process id of the writer when `name` is the temporary file of `destination_name` that
// earlier versions wrote, visible and with no host (`<destination_name>.tmp.<pid>.<n>`), else 0.
pid_t legacy_temp_file_writer(std::string name, const std::string& destination_name) {
  const std::string start = destination_name + ".tmp.";
  if (name.size() <= start.size() || name.compare(0, start.size(), start) != 0) return 0;
  if (pop_number(name).empty()) return 0;
  const std::string pid = pop_number(name);
  if (pid.empty() || pid.size() > 9 || name.size() + 1 != start.size()) return 0;
  return static_cast<pid_t>(std::stol(pid));
}

// Remove the temporary files in `directory` whose writer no longer runs (a killed process):
// ours, of any destination, and those of `destination_name` in the format of earlier versions
// (which named no host, so only this destination's are taken: a name that matches by chance
// is at risk only when that very file is written). A process of another user answers EPERM,
// not ESRCH: it runs, and its file stays.
void remove_stale_temp_files(const std::string& directory, const std::string& destination_name) {
  const std::string marker = temp_marker();
  std::error_code error;
  for (std::filesystem::directory_iterator it(directory, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    pid_t writer = temp_file_writer(name, marker);
    if (writer == 0) writer = legacy_temp_file_writer(name, destination_name);
    if (writer > 0 && ::kill(writer, 0) != 0 && errno == ESRCH) ::unlink(it->path().c_str());
  }
}


}  // namespace

AtomicOutput::AtomicOutput(std::string destination) : destination_(std::move(destination)) {
  ATTEND_CHECK(!destination_.empty(), "AtomicOutput needs a destination path");
  const std::string problem = output_path_problem(destination_);
  if (!problem.empty()) throw InputError(destination_, 0, "cannot write: " + problem);
  const std::string directory = parent_directory(destination_);
  const std::filesystem::path path(destination_);
  remove_stale_temp_files(directory, path.filename().string());
  const std::string writer = temp_marker() + std::to_string(::getpid()) + "." + std::to_string(g_temp_counter.fetch_add(1));
  // A name near the file system's limit is shortened in its temporary name only.
  const std::string name = path.filename().string().substr(0, kMaxNameBytes - 1 - std::min(writer.size(), kMaxNameBytes - 1));
  temp_path_ = (path.parent_path() / ("." + name + writer)).string();
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
  if (OutputTransaction* open = OutputTransaction::current()) {
    open->adopt(temp_path_, destination_);
  } else {
    OutputTransaction alone;  // a set of one file
    alone.adopt(temp_path_, destination_);
    alone.commit();
  }
  committed_ = true;
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
