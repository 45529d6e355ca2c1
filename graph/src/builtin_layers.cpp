#include "attend/graph/builtin_layers.hpp"

#include "attend/graph/layers/gat_conv.hpp"
#include "attend/graph/node_classifier.hpp"

namespace attend::graph {

void register_graph_layers(Registry& registry) {
  GatConv::register_into(registry);
  NodeClassifier::register_into(registry);
}

}  // namespace attend::graph
