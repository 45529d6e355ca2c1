#include "attend/core/registry.hpp"

#include <cctype>

#include "attend/core/error.hpp"
#include "attend/core/quoted_input.hpp"

namespace attend {

Registry& Registry::global() {
  static Registry registry;
  return registry;
}

std::string Registry::normalize(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == '_' || c == '-') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

void Registry::add(std::string_view name, ModuleFactory factory, std::string origin,
                   std::shared_ptr<const void> library) {
  const std::string key = normalize(name);
  ATTEND_CHECK(!key.empty(), "empty layer name");
  ATTEND_CHECK(factory != nullptr, "null factory for layer '" << key << "'");
  auto it = items_.find(key);
  ATTEND_CHECK(it == items_.end(), "layer '" << name << "' from " << origin
                                             << " is already registered by " << (it == items_.end() ? "" : it->second.origin));
  items_.emplace(key, Item{std::move(library), std::move(factory), std::move(origin), std::string(name), {}});
}

void Registry::document(std::string_view name, std::vector<OptionDoc> options) {
  auto it = items_.find(normalize(name));
  ATTEND_CHECK(it != items_.end(), "documenting the unregistered layer '" << name << "'");
  it->second.options = std::move(options);
}

bool Registry::contains(std::string_view name) const { return items_.count(normalize(name)) > 0; }

std::unique_ptr<Module> Registry::create(std::string_view name, const Json& config) const {
  auto it = items_.find(normalize(name));
  if (it == items_.end()) {
    std::string known;
    for (const auto& [key, item] : items_) known += (known.empty() ? "" : ", ") + item.name;
    throw InputError("unknown layer " + quoted_input(name) +
                     " (a plugin's layer needs its plugin: --plugin or ATTEND_PLUGIN_PATH); registered layers: " +
                     (known.empty() ? "(none)" : known));
  }
  std::unique_ptr<Module> module = it->second.factory(config);
  ATTEND_CHECK(module != nullptr, "factory for '" << it->second.name << "' returned null");
  if (it->second.library) module->set_library_handle(it->second.library);
  return module;
}

std::vector<Registry::Entry> Registry::list() const {
  std::vector<Entry> out;
  for (const auto& [key, item] : items_) out.push_back({item.name, item.origin, item.options});
  return out;
}

std::vector<std::string> Registry::clashes(const Registry& other) const {
  std::vector<std::string> out;
  for (const auto& [key, item] : other.items_) {
    if (items_.count(key) > 0) out.push_back(item.name);
  }
  return out;
}

void Registry::adopt(Registry&& other, const std::string& origin, std::shared_ptr<const void> library) {
  const std::vector<std::string> taken = clashes(other);
  ATTEND_CHECK(taken.empty(), "layer '" << taken.front() << "' from " << origin << " is already registered by "
                                        << items_.at(normalize(taken.front())).origin);
  for (auto& [key, item] : other.items_) {
    items_.emplace(key, Item{library, std::move(item.factory), origin, std::move(item.name), std::move(item.options)});
  }
  other.items_.clear();
}

}  // namespace attend
