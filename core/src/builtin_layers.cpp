#include "attend/core/builtin_layers.hpp"

#include "attend/core/layers/linear.hpp"

namespace attend {

void register_core_layers(Registry& registry) { Linear::register_into(registry); }

}  // namespace attend
