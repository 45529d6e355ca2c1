#include "attend/core/plugin_loader.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <filesystem>
#include <mutex>

#include "attend/core/error.hpp"
#include "attend/plugin_abi.h"

namespace attend {

namespace {

/// Libraries whose last handle is gone, waiting for `close_unused_plugins`. Never destroyed:
/// handles held by the process-wide registry are released during static destruction.
struct Unused {
  std::mutex mutex;
  std::vector<void*> libraries;
};

Unused& unused() {
  static Unused* const list = new Unused;
  return *list;
}

/// A shared handle to an open library: its last release queues the library for closing.
std::shared_ptr<const void> share_library(void* library) {
  return std::shared_ptr<const void>(library, [](const void* lib) {
    Unused& u = unused();
    std::lock_guard<std::mutex> lock(u.mutex);
    u.libraries.push_back(const_cast<void*>(lib));
  });
}

std::string last_dl_error() {
  const char* e = dlerror();
  return e != nullptr ? e : "unknown dlopen error";
}

}  // namespace

PluginInfo load_plugin(const std::string& path, Registry& registry) {
  close_unused_plugins();
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw InputError("plugin '" + path + "': no such file");
  const std::string full = fs::canonical(path, ec).string();
  auto refuse = [&](const std::string& why) { return InputError("plugin '" + path + "' " + why); };

  void* raw = dlopen(full.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (raw == nullptr) throw refuse("is not a loadable shared library: " + last_dl_error());
  const std::shared_ptr<const void> library = share_library(raw);

  dlerror();
  auto info_fn = reinterpret_cast<AttendPluginInfoFn>(dlsym(raw, ATTEND_PLUGIN_INFO_SYMBOL));
  if (info_fn == nullptr) throw refuse("is not an attend plugin (no symbol " ATTEND_PLUGIN_INFO_SYMBOL ")");
  const AttendPluginInfo* info = info_fn();
  if (info == nullptr) throw refuse("is not an attend plugin (" ATTEND_PLUGIN_INFO_SYMBOL " returned null)");
  if (info->abi_version != ATTEND_PLUGIN_ABI_VERSION) {
    throw refuse("has plugin ABI version " + std::to_string(info->abi_version) + ", this attend needs " +
                 std::to_string(ATTEND_PLUGIN_ABI_VERSION) + "; rebuild the plugin against this attend");
  }
  const std::string fingerprint = info->fingerprint != nullptr ? info->fingerprint : "";
  if (fingerprint != attend_plugin_build_fingerprint()) {
    throw refuse("was built as '" + fingerprint + "' but this attend is '" + attend_plugin_build_fingerprint() +
                 "'; rebuild the plugin with the same compiler against this attend");
  }
  PluginInfo out{full, info->name != nullptr ? info->name : "", info->version != nullptr ? info->version : "", {}};

  auto register_fn = reinterpret_cast<AttendPluginRegisterFn>(dlsym(raw, ATTEND_PLUGIN_REGISTER_SYMBOL));
  if (register_fn == nullptr) throw refuse("lacks the symbol " ATTEND_PLUGIN_REGISTER_SYMBOL);
  Registry scratch;
  char error[512] = {0};
  if (register_fn(&scratch, error, sizeof error) != 0) {
    throw refuse("failed to register its layers: " + std::string(error[0] != 0 ? error : "no reason given"));
  }
  if (scratch.list().empty()) throw refuse("registers no layers");
  if (const std::vector<std::string> taken = registry.clashes(scratch); !taken.empty()) {
    std::string owner;
    for (const Registry::Entry& e : registry.list()) {
      if (Registry::normalize(e.name) == Registry::normalize(taken.front())) owner = e.origin;
    }
    throw refuse("registers layer '" + taken.front() + "', which " + owner + " already registers");
  }
  for (const Registry::Entry& e : scratch.list()) out.layers.push_back(e.name);
  registry.adopt(std::move(scratch), full, library);
  return out;
}

std::vector<std::string> plugin_files_in(const std::string& directories) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= directories.size()) {
    std::size_t end = directories.find(':', start);
    if (end == std::string::npos) end = directories.size();
    const std::string dir = directories.substr(start, end - start);
    start = end + 1;
    std::error_code ec;
    if (dir.empty() || !fs::is_directory(dir, ec)) continue;
    std::vector<std::string> files;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
      if (entry.is_regular_file(ec) && entry.path().extension() == ".so") files.push_back(entry.path().string());
    }
    std::sort(files.begin(), files.end());
    out.insert(out.end(), files.begin(), files.end());
  }
  return out;
}

int close_unused_plugins() {
  std::vector<void*> libraries;
  {
    Unused& u = unused();
    std::lock_guard<std::mutex> lock(u.mutex);
    libraries.swap(u.libraries);
  }
  for (void* library : libraries) dlclose(library);
  return static_cast<int>(libraries.size());
}

}  // namespace attend
