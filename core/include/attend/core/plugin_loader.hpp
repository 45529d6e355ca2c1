#pragma once
/// Plugin loader: opens a plugin shared library (see <attend/plugin_abi.h>), checks that it was
/// built for this attend, and adds its layers to a registry, each tagged with the plugin's
/// path as its origin.
///
/// The library stays loaded while the registry entries or any module built from them live:
/// each holds a shared handle. When the last one goes, the library is closed at the next safe
/// point (`close_unused_plugins`, called by `load_plugin`), never from the destructor that
/// dropped it, because that destructor may still be running the plugin's own code.

#include <string>
#include <vector>

#include "attend/core/registry.hpp"

namespace attend {

/// What a loaded plugin said about itself and what it registered.
struct PluginInfo {
  std::string path;                 ///< absolute path of the library (the layers' origin)
  std::string name;                 ///< the plugin's name
  std::string version;              ///< the plugin's version
  std::vector<std::string> layers;  ///< normalised names of the layers it added, sorted
};

/// dlopen `path` (RTLD_NOW | RTLD_LOCAL), check its ABI version and build fingerprint, run its
/// registration into a scratch registry and move the entries into `registry`. Refuses, with
/// attend::InputError and a one-line reason naming the file, a missing file, a file that is
/// not a loadable library or not an attend plugin, a missing symbol, an ABI or fingerprint
/// mismatch, a failed registration, and a layer name `registry` already has (in which case
/// nothing is registered). Not thread-safe with respect to `registry`.
PluginInfo load_plugin(const std::string& path, Registry& registry);

/// The plugin files named by a colon-separated list of directories (ATTEND_PLUGIN_PATH):
/// every regular file ending in ".so" in each existing directory, directories in list order,
/// files sorted by name within each. Empty entries and missing directories are skipped.
std::vector<std::string> plugin_files_in(const std::string& directories);

/// Close every plugin library whose registry entries and modules are all gone; returns how
/// many were closed. Thread-safe.
int close_unused_plugins();

}  // namespace attend
