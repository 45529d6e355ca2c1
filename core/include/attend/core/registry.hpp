#pragma once
/// Registry: from a normalised layer name to a factory that builds the layer from JSON.
///
/// Names are normalised (lower case, `_` and `-` dropped), so `GATv2`, `gat_v2` and `gatv2`
/// are one name. A miss names every registered layer; registering a name twice is an error.
/// Built-ins register through explicit functions (`register_core_layers`, ...), never static
/// initialisers; plugins register into the same process-wide registry.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "attend/core/module.hpp"
#include "attend/core/option_list.hpp"

namespace attend {

using ModuleFactory = std::function<std::unique_ptr<Module>(const Json& config)>;

class Registry {
 public:
  struct Entry {
    std::string name;    ///< the name as registered (`graph_transformer`)
    std::string origin;  ///< "built-in" or the plugin's path
    std::vector<OptionDoc> options;  ///< the layer's documented options (empty: none given)
  };

  /// The process-wide registry (attend::core is a shared library, so there is one).
  static Registry& global();
  /// Lower case with `_` and `-` removed.
  static std::string normalize(std::string_view name);

  /// Add a factory; throws attend::Error when the normalised name is taken. `library`, when
  /// given, is kept alive by every module the factory builds.
  void add(std::string_view name, ModuleFactory factory, std::string origin = "built-in",
           std::shared_ptr<const void> library = nullptr);
  /// Attach the documentation of a registered layer's options (OptionList::docs), which
  /// `attend layers --options NAME` prints.
  void document(std::string_view name, std::vector<OptionDoc> options);
  bool contains(std::string_view name) const;
  /// Build a module; an unknown name throws attend::InputError listing the known names.
  std::unique_ptr<Module> create(std::string_view name, const Json& config) const;
  /// Every entry, sorted by normalised name.
  std::vector<Entry> list() const;

  /// The names (as `other` registered them) of `other`'s layers that this registry already
  /// has under the same normalised name, sorted by normalised name.
  std::vector<std::string> clashes(const Registry& other) const;
  /// Move every entry of `other` here (all or nothing: throws attend::Error, leaving both
  /// registries unchanged, when a name clashes), with `origin` and `library` replacing theirs.
  /// The plugin loader registers a plugin into a scratch registry, then adopts it.
  void adopt(Registry&& other, const std::string& origin, std::shared_ptr<const void> library);

 private:
  struct Item {
    std::shared_ptr<const void> library;  ///< first, so released after the factory
    ModuleFactory factory;
    std::string origin;
    std::string name;  ///< as registered
    std::vector<OptionDoc> options;
  };
  std::map<std::string, Item> items_;
};

}  // namespace attend
