#pragma once
/// Registration of attend::graph's built-in layers (explicit, no static initialisers).

namespace attend {
class Registry;
}

namespace attend::graph {

/// Add "gat", "gatv2", "graph_transformer", "rgcn", "rgat", "graphormer" and
/// "node_classifier" to `registry`.
void register_graph_layers(Registry& registry);

}  // namespace attend::graph
