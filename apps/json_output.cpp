#include "json_output.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "attend/core/error.hpp"
#include "attend/core/options_json.hpp"

namespace attend::cli {

void write_json_file(const std::string& path, const nlohmann::json& value) {
  // Same directory as the target, so the rename never crosses file systems; the process id
  // keeps two attend processes writing the same target apart.
  const std::string temp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream file(temp, std::ios::binary | std::ios::trunc);
    if (!file) throw InputError(path, 0, std::string("cannot create: ") + std::strerror(errno));
    file << with_short_floats(value).dump(2) << '\n';
    file.close();
    if (!file) {
      std::remove(temp.c_str());
      throw InputError(path, 0, "cannot write (disk full?)");
    }
  }
  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    std::remove(temp.c_str());
    throw InputError(path, 0, "cannot replace: " + ec.message());
  }
}

}  // namespace attend::cli
