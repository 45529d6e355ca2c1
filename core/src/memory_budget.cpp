#include "attend/core/memory_budget.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

#include "attend/core/error.hpp"

namespace attend {

namespace {

std::string gibibytes(double bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3g GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return text;
}

// The number of bytes a cgroup limit file holds, or nullopt when the file is missing, says
// "max" (cgroup v2: no limit) or holds no number.
std::optional<std::size_t> read_limit(const std::string& path) {
  std::ifstream file(path);
  std::string word;
  if (!(file >> word) || word.empty() || word.size() > 20) return std::nullopt;
  if (!std::all_of(word.begin(), word.end(), [](char c) { return c >= '0' && c <= '9'; })) return std::nullopt;
  try {
    return static_cast<std::size_t>(std::stoull(word));
  } catch (const std::exception&) {  // beyond 64 bits
    return std::nullopt;
  }
}

// The group paths of this process in `self_cgroup` (the format of /proc/self/cgroup:
// "ID:CONTROLLERS:PATH" lines): {v2 path ("0::PATH"), v1 memory controller path}; "" when absent.
std::pair<std::string, std::string> group_paths(const std::string& self_cgroup) {
  std::ifstream file(self_cgroup);
  std::string line, v2, v1;
  while (std::getline(file, line)) {
    const std::size_t first = line.find(':'), second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1), path = line.substr(second + 1);
    if (line.compare(0, first, "0") == 0 && controllers.empty()) v2 = path;
    std::stringstream list(controllers);
    for (std::string c; std::getline(list, c, ',');) {
      if (c == "memory") v1 = path;
    }
  }
  return {v2, v1};
}

}  // namespace

std::optional<std::size_t> cgroup_memory_limit(const std::string& root, const std::string& self_cgroup) {
  const auto [v2, v1] = group_paths(self_cgroup);
  // At the top of each mount (a container's own group, with a cgroup namespace) and at the
  // process's group below it (no namespace).
  const std::vector<std::string> files = {root + "/memory.max", root + "/memory/memory.limit_in_bytes",
                                          v2.empty() ? "" : root + v2 + "/memory.max",
                                          v1.empty() ? "" : root + "/memory" + v1 + "/memory.limit_in_bytes"};
  std::optional<std::size_t> limit;
  for (const std::string& file : files) {
    if (file.empty()) continue;
    if (const auto bytes = read_limit(file)) limit = limit ? std::min(*limit, *bytes) : *bytes;
  }
  return limit;
}

std::size_t memory_budget_bytes() {
  static const std::size_t budget = [] {
    std::size_t bytes = static_cast<std::size_t>(-1);  // unknown: no budget; the allocation itself then says
    const long pages = sysconf(_SC_PHYS_PAGES), page_bytes = sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && page_bytes > 0) bytes = static_cast<std::size_t>(pages) * static_cast<std::size_t>(page_bytes);
    if (const auto limit = cgroup_memory_limit("/sys/fs/cgroup", "/proc/self/cgroup")) bytes = std::min(bytes, *limit);
    return bytes;
  }();
  return budget;
}

void require_memory(double bytes, const std::string& what) {
  const auto budget = static_cast<double>(memory_budget_bytes());
  if (!(bytes <= budget)) {
    throw InputError(what + " needs " + gibibytes(bytes) + " of memory, more than the " + gibibytes(budget) +
                     " this process may use");
  }
}

}  // namespace attend
