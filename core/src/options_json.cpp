#include "attend/core/options_json.hpp"

#include <algorithm>

namespace attend {

void check_option_keys(const Json& config, const std::vector<std::string>& known,
                       const std::string& owner) {
  if (config.is_null()) return;
  if (!config.is_object()) {
    throw InputError(owner + ": options must be a JSON object, got " + config.dump());
  }
  for (const auto& [key, value] : config.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string list;
    for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
    throw InputError(owner + ": unknown option '" + key + "'; valid options: " + list);
  }
}

}  // namespace attend
