#include "data_files.hpp"

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "attend/core/error.hpp"

namespace attend::cli {

std::string find_data_file(const std::string& relative) {
  namespace fs = std::filesystem;
  std::vector<fs::path> roots;
  if (const char* env = std::getenv("ATTEND_DATA_DIR"); env != nullptr && *env != '\0') roots.emplace_back(env);
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);
  if (!error) roots.push_back(exe.parent_path().parent_path() / "share" / "attend");
#ifdef ATTEND_SOURCE_DATA_DIR
  roots.emplace_back(ATTEND_SOURCE_DATA_DIR);
#endif
  std::string tried;
  for (const fs::path& root : roots) {
    const fs::path candidate = root / relative;
    if (fs::is_regular_file(candidate, error)) return candidate.string();
    tried += (tried.empty() ? "" : ", ") + candidate.string();
  }
  throw InputError("cannot find the data file '" + relative + "' (tried " + tried + "; set ATTEND_DATA_DIR)");
}

}  // namespace attend::cli
