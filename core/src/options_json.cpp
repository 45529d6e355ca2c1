#include "attend/core/options_json.hpp"
#include "attend/core/quoted_input.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

namespace attend {

void check_option_keys(const Json& config, const std::vector<std::string>& known,
                       const std::string& owner) {
  if (config.is_null()) return;
  if (!config.is_object()) {
    throw InputError(owner + ": options must be a JSON object, got " + quoted_input(config.dump()));
  }
  for (const auto& [key, value] : config.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string list;
    for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
    throw InputError(owner + ": unknown option " + quoted_input(key) + "; valid options: " + list);
  }
}

Json with_short_floats(const Json& j) {
  if (j.is_number_float()) {
    const double d = j.get<double>();
    const auto f = static_cast<float>(d);
    if (!std::isfinite(d) || static_cast<double>(f) != d) return j;
    char text[32];
    const auto end = std::to_chars(text, text + sizeof text, f).ptr;  // shortest round trip
    return std::strtod(std::string(text, end).c_str(), nullptr);
  }
  if (j.is_object() || j.is_array()) {
    Json out = j;
    for (auto it = out.begin(); it != out.end(); ++it) *it = with_short_floats(*it);
    return out;
  }
  return j;
}

}  // namespace attend
