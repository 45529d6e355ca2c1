// Registers "dup_probe" and then "gat", which attend has built in: the loader must refuse
// the plugin and register neither.
#include <memory>

#include "attend/core/layers/linear.hpp"
#include "attend/core/plugin.hpp"

namespace {
void register_layers(attend::Registry& registry) {
  for (const char* name : {"dup_probe", "gat"}) {
    registry.add(name, [](const attend::Json& config) -> std::unique_ptr<attend::Module> {
      return std::make_unique<attend::Linear>(attend::LinearOptions::from_json(config));
    });
  }
}
}  // namespace

ATTEND_PLUGIN("duplicate_layer", "1.0.0", register_layers)
