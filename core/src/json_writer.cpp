#include "attend/core/json_writer.hpp"

#include <fstream>

#include "attend/core/atomic_file.hpp"
#include "attend/core/error.hpp"
#include "attend/core/options_json.hpp"

namespace attend {

void write_json_file(const std::string& path, const nlohmann::json& value) {
  AtomicOutput output(path);
  {
    std::ofstream file(output.temp_path(), std::ios::binary | std::ios::trunc);
    if (!file) throw InputError(path, 0, "cannot create its temporary file " + output.temp_path());
    file << with_short_floats(value).dump(2) << '\n';
    file.close();
    if (!file) throw InputError(path, 0, "cannot write (disk full?)");
  }
  output.commit();
}

}  // namespace attend
