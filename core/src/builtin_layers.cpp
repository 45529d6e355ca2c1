#include "attend/core/builtin_layers.hpp"

namespace attend {

void register_core_layers(Registry& registry) {
  // attend::core has no layer modules yet; each one adds a `registry.add(...)` line here.
  (void)registry;
}

}  // namespace attend
