#include "attend/core/memory_budget.hpp"

#include <unistd.h>

#include <cstdio>

#include "attend/core/error.hpp"

namespace attend {

namespace {
std::string gibibytes(double bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3g GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return text;
}
}  // namespace

std::size_t memory_budget_bytes() {
  static const std::size_t budget = [] {
    const long pages = sysconf(_SC_PHYS_PAGES), page_bytes = sysconf(_SC_PAGE_SIZE);
    // Unknown (no sysconf answer): no budget; the allocation itself then says.
    if (pages <= 0 || page_bytes <= 0) return static_cast<std::size_t>(-1);
    return static_cast<std::size_t>(pages) * static_cast<std::size_t>(page_bytes);
  }();
  return budget;
}

void require_memory(double bytes, const std::string& what) {
  const auto budget = static_cast<double>(memory_budget_bytes());
  if (!(bytes <= budget)) {
    throw InputError(what + " needs " + gibibytes(bytes) + " of memory, more than this machine's " + gibibytes(budget));
  }
}

}  // namespace attend
