#pragma once
/// Writing a plugin: `ATTEND_PLUGIN(name, version, register_function)` in one source file of
/// the plugin defines the two C-linkage entry points of <attend/plugin_abi.h>:
///
///   void register_my_layers(attend::Registry& registry) {
///     registry.add("my_layer", [](const attend::Json& c) { return std::make_unique<MyLayer>(c); });
///   }
///   ATTEND_PLUGIN("my_plugin", "1.0.0", register_my_layers)
///
/// The registry handed to the function is a scratch one: the loader moves its entries into
/// the real registry only when none of the names is taken, tagging each with the plugin's path
/// and keeping the library loaded while a module it built lives.

#include <cstdio>
#include <exception>

#include "attend/core/registry.hpp"
#include "attend/plugin_abi.h"

namespace attend::detail {

/// Run `register_layers` on the registry behind `registry`; an exception becomes a non-zero
/// return with its message in `error` (exceptions must not cross the C boundary).
template <class F>
int run_plugin_registration(F&& register_layers, void* registry, char* error, std::size_t size) noexcept {
  try {
    register_layers(*static_cast<Registry*>(registry));
    return 0;
  } catch (const std::exception& e) {
    if (error != nullptr && size > 0) std::snprintf(error, size, "%s", e.what());
  } catch (...) {
    if (error != nullptr && size > 0) std::snprintf(error, size, "unknown exception");
  }
  return 1;
}

}  // namespace attend::detail

/// Define `attend_plugin_info` (name and version are string literals; the fingerprint is this
/// translation unit's) and `attend_plugin_register` (calls `register_function(attend::Registry&)`).
#define ATTEND_PLUGIN(name, version, register_function)                                          \
  extern "C" ATTEND_PLUGIN_EXPORT const AttendPluginInfo* attend_plugin_info(void) {            \
    static const AttendPluginInfo info = {ATTEND_PLUGIN_ABI_VERSION, name, version,              \
                                          attend_plugin_build_fingerprint()};                    \
    return &info;                                                                                \
  }                                                                                              \
  extern "C" ATTEND_PLUGIN_EXPORT int attend_plugin_register(void* registry, char* error,        \
                                                             size_t error_size) {                \
    return ::attend::detail::run_plugin_registration(register_function, registry, error,         \
                                                     error_size);                                \
  }
