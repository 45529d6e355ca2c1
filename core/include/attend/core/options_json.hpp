#pragma once
/// Reading option structs from JSON (layer configs, optimizer configs) with messages that say
/// which option of what was wrong. A null config counts as an empty object.

#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "attend/core/error.hpp"
#include "attend/core/quoted_input.hpp"

namespace attend {

using Json = nlohmann::json;

/// Throws attend::InputError when `config` is neither null nor an object, or has a key not in
/// `known`; the message names `owner` ("linear", "adam") and lists the known keys.
void check_option_keys(const Json& config, const std::vector<std::string>& known,
                       const std::string& owner);

/// Signed whole-number options (sizes, counts, heads) must lie within +-kMaxWholeOption, so
/// that a product of two of them cannot overflow int64.
inline constexpr int64_t kMaxWholeOption = 2147483647;

/// `config[key]` as T, or `fallback` when the key is absent; a value of the wrong type, or a
/// signed whole number beyond kMaxWholeOption, throws attend::InputError naming `owner` and
/// `key`.
template <class T>
T option_or(const Json& config, const std::string& key, T fallback, const std::string& owner) {
  if (!config.is_object() || !config.contains(key)) return fallback;
  const Json& value = config.at(key);
  try {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      if (!value.is_number_integer()) throw InputError(owner + ": option " + quoted_input(key) +
                                                       " must be a whole number, got " +
                                                       quoted_input(value.dump()));
      if constexpr (std::is_signed_v<T>) {
        const bool beyond = value.is_number_unsigned()
                                ? value.get<uint64_t>() > static_cast<uint64_t>(kMaxWholeOption)
                                : value.get<int64_t>() < -kMaxWholeOption || value.get<int64_t>() > kMaxWholeOption;
        if (beyond) {
          throw InputError(owner + ": option " + quoted_input(key) + " must be within +-" + std::to_string(kMaxWholeOption) +
                           ", got " + quoted_input(value.dump()));
        }
      }
    }
    return value.get<T>();
  } catch (const nlohmann::json::exception&) {
    throw InputError(owner + ": option " + quoted_input(key) + " has the wrong type (" +
                     quoted_input(value.dump()) + ")");
  }
}

/// `config[key]` as T; a missing key or a value of the wrong type throws attend::InputError.
template <class T>
T option_required(const Json& config, const std::string& key, const std::string& owner) {
  if (!config.is_object() || !config.contains(key)) {
    throw InputError(owner + ": missing required option " + quoted_input(key));
  }
  return option_or<T>(config, key, T{}, owner);
}

/// `j` with every floating-point number that is exactly a float (an option or result held as
/// float) rewritten as the shortest decimal that reads back to that float: 0.2, not
/// 0.20000000298023224. Other numbers, and the structure, are unchanged. For JSON that people
/// read: model configs in checkpoints, `--json` outputs.
Json with_short_floats(const Json& j);

}  // namespace attend
