#pragma once
/// Registration of the layers that ship in attend::core.
///
/// Built-in layers enter the registry through explicit calls, never static initialisers, so
/// the set of layers is exactly what the program asked for and registration order is fixed.
/// attend::graph and attend::bio each add their own function (`register_graph_layers`,
/// `register_bio_layers`) next to their layers; the `attend` program calls every one of them
/// once on `Registry::global()` before it parses its command line.

#include "attend/core/registry.hpp"

namespace attend {

/// Add every layer implemented in attend::core to `registry` (origin "built-in").
/// Call it once per registry: `Registry::add` refuses a name that is already present.
/// (attend::core has no layer modules yet, so for now it adds nothing.)
void register_core_layers(Registry& registry);

}  // namespace attend
