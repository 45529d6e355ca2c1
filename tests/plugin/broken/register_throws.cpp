// Its registration throws: the loader must refuse it with the plugin's reason.
#include <stdexcept>

#include "attend/core/plugin.hpp"

namespace {
void register_layers(attend::Registry&) { throw std::runtime_error("the plugin could not set itself up"); }
}  // namespace

ATTEND_PLUGIN("register_throws", "1.0.0", register_layers)
