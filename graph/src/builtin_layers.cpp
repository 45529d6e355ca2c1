#include "attend/graph/builtin_layers.hpp"

#include "attend/graph/layers/batch_norm.hpp"
#include "attend/graph/layers/gat_conv.hpp"
#include "attend/graph/layers/gatv2_conv.hpp"
#include "attend/graph/layers/gcn_conv.hpp"
#include "attend/graph/layers/graph_transformer_conv.hpp"
#include "attend/graph/layers/graphormer_conv.hpp"
#include "attend/graph/layers/node_linear.hpp"
#include "attend/graph/layers/rgat_conv.hpp"
#include "attend/graph/layers/rgcn_conv.hpp"
#include "attend/graph/node_classifier.hpp"

namespace attend::graph {

void register_graph_layers(Registry& registry) {
  GatConv::register_into(registry);
  GatV2Conv::register_into(registry);
  GcnConv::register_into(registry);
  GraphTransformerConv::register_into(registry);
  RgcnConv::register_into(registry);
  RgatConv::register_into(registry);
  GraphormerConv::register_into(registry);
  NodeLinear::register_into(registry);
  BatchNorm::register_into(registry);
  NodeClassifier::register_into(registry);
}

}  // namespace attend::graph
