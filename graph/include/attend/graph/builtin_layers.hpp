#pragma once
/// Registration of attend::graph's built-in layers (explicit, no static initialisers).

namespace attend {
class Registry;
}

namespace attend::graph {

/// Add "gat" and "node_classifier" (and every other graph layer) to `registry`.
void register_graph_layers(Registry& registry);

}  // namespace attend::graph
