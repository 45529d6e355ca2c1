#include "attend/core/output_path.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace attend {

namespace {

// What a file of `mode` is, for a message ("a device").
const char* kind_of_file(mode_t mode) {
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISFIFO(mode)) return "a fifo";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

std::string output_path_problem(const std::string& path) {
  if (path.empty()) return "the path is empty";
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code error;
  if (!parent.empty() && !std::filesystem::is_directory(parent, error)) {
    return "directory '" + parent.string() + "' does not exist";
  }
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    if (errno == ENOENT) return "";
    return std::string("cannot check it: ") + std::strerror(errno);  // a name too long, no permission
  }
  if (S_ISREG(info.st_mode)) return "";
  if (S_ISDIR(info.st_mode)) return "it is a directory";
  return std::string("it is ") + kind_of_file(info.st_mode) + ", not a regular file (writing would replace it)";
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat info_a {}, info_b {};
  const bool a_exists = ::stat(a.c_str(), &info_a) == 0;
  const bool b_exists = ::stat(b.c_str(), &info_b) == 0;
  if (a_exists != b_exists) return false;
  if (a_exists) return info_a.st_dev == info_b.st_dev && info_a.st_ino == info_b.st_ino;
  std::error_code error_a, error_b;
  const std::filesystem::path resolved_a = std::filesystem::weakly_canonical(std::filesystem::absolute(a), error_a);
  const std::filesystem::path resolved_b = std::filesystem::weakly_canonical(std::filesystem::absolute(b), error_b);
  if (error_a || error_b) return a == b;
  return resolved_a == resolved_b;
}

}  // namespace attend
