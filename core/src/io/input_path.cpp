#include "attend/core/io/input_path.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "attend/core/error.hpp"

namespace attend::io {

namespace fs = std::filesystem;

PathKind path_kind(const std::string& path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  switch (status.type()) {
    case fs::file_type::not_found: return PathKind::kMissing;
    case fs::file_type::regular: return PathKind::kFile;
    case fs::file_type::directory: return PathKind::kDirectory;
    case fs::file_type::none:
    case fs::file_type::unknown: break;
    default: return PathKind::kOther;
  }
  throw InputError(path, 0, "cannot look at this path: " + (error ? error.message() : std::string("unknown file type")));
}

void require_input_file(const std::string& path) {
  switch (path_kind(path)) {
    case PathKind::kMissing: throw InputError(path, 0, "no such file");
    case PathKind::kDirectory: throw InputError(path, 0, "is a folder, expected a file");
    default: return;
  }
}

std::vector<std::string> folder_entries(const std::string& dir) {
  std::vector<std::string> entries;
  std::error_code error;
  fs::directory_iterator it(dir, error), end;
  for (; !error && it != end; it.increment(error)) entries.push_back(it->path().string());
  if (error) throw InputError(dir, 0, "cannot list this folder: " + error.message());
  std::sort(entries.begin(), entries.end());
  return entries;
}

}  // namespace attend::io
