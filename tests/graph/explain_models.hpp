#pragma once
/// Small featured graphs and two-layer models for the explanation tests.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "attend/core/registry.hpp"
#include "attend/graph/builtin_layers.hpp"
#include "attend/graph/node_classifier.hpp"
#include "attend/graph/node_training.hpp"
#include "grad_check.hpp"
#include "random_graphs.hpp"

namespace attend::testing {

/// A random graph of n nodes with `features` random non-negative features per node and
/// `classes` labels; typed and directed (3 relations) when `typed`.
inline graph::NodeDataset featured_dataset(int64_t n, int64_t edges, int64_t features, int64_t classes, bool typed,
                                           uint64_t seed) {
  graph::NodeDataset d = typed ? random_typed_dataset(n, edges, 3, seed) : random_dataset(n, edges, seed);
  d.features = SparseMatrix::from_dense(random_tensor({n, features}, seed + 7, 0.0f, 1.0f));
  d.num_classes = classes;
  for (int64_t i = 0; i < n; ++i) d.labels[i] = i % classes;
  return d;
}

/// A two-layer node classifier of `layer` type ("gat", "gcn", "rgcn") for `data`.
inline Json two_layer_model(const std::string& layer, const graph::PreparedNodeData& data, int64_t hidden = 6) {
  const int64_t f = data.features.cols(), c = data.dataset.num_classes;
  Json first = {{"in_channels", f}, {"out_channels", hidden}, {"seed", 11}};
  Json second = {{"in_channels", layer == "gat" ? 2 * hidden : hidden}, {"out_channels", c}, {"seed", 12}};
  if (layer == "gat") {
    first["heads"] = 2;
    second["heads"] = 2;
    second["concat"] = false;
  }
  if (layer == "rgcn") {
    first["num_relations"] = data.graph.num_relations();
    second["num_relations"] = data.graph.num_relations();
  }
  return {{"layers", Json::array({{{"type", layer}, {"config", first}}, {{"type", layer}, {"config", second}}})},
          {"activation", "elu"}};
}

/// A registry with the graph layers.
inline std::unique_ptr<Registry> graph_registry() {
  auto registry = std::make_unique<Registry>();
  graph::register_graph_layers(*registry);
  return registry;
}

/// The explanation tests' usual subject: a random featured graph prepared as training prepares
/// it (features normalised) and a node classifier over it in evaluation mode, with the registry
/// it was built from.
struct TinyNodeModel {
  /// two_layer_model(layer) over featured_dataset(n, edges, features, classes, seed), typed
  /// for "rgcn".
  TinyNodeModel(const std::string& layer, int64_t n, int64_t edges, int64_t features, int64_t classes, uint64_t seed)
      : data(graph::prepare_node_data(featured_dataset(n, edges, features, classes, layer == "rgcn", seed), true)),
        model(two_layer_model(layer, data), *registry) {
    model.eval();
  }
  /// The model `config` over `prepared`.
  TinyNodeModel(const Json& config, graph::PreparedNodeData prepared)
      : data(std::move(prepared)), model(config, *registry) {
    model.eval();
  }

  std::unique_ptr<Registry> registry = graph_registry();
  graph::PreparedNodeData data;
  graph::NodeClassifier model;
};

/// Two GCN layers (ReLU between) with hand-set weights: layer 1 keeps the two features apart
/// (hidden unit a = feature 0, b = feature 1); layer 2 gives class 1 the logit 12 a and class
/// 0 the logit b (the biases stay zero). On a graph where only node 1 has feature 0, node 0's
/// evidence for class 1 comes from node 1 alone, through the edge 1 -> 0 (at layer 1 into a_0,
/// at layer 2 from a_1). In evaluation mode.
inline std::unique_ptr<graph::NodeClassifier> one_signal_model(const Registry& registry) {
  const Json model = {{"layers", Json::array({{{"type", "gcn"}, {"config", {{"in_channels", 2}, {"out_channels", 2}}}},
                                              {{"type", "gcn"}, {"config", {{"in_channels", 2}, {"out_channels", 2}}}}})},
                      {"activation", "relu"}};
  auto classifier = std::make_unique<graph::NodeClassifier>(model, registry);
  for (auto& [name, v] : classifier->named_parameters()) {
    if (name == "layers.0.weight") v.value() = Tensor({2, 2}, std::vector<float>{1.0f, 0.0f, 0.0f, 1.0f});
    if (name == "layers.1.weight") v.value() = Tensor({2, 2}, std::vector<float>{0.0f, 12.0f, 1.0f, 0.0f});
  }
  classifier->eval();
  return classifier;
}

}  // namespace attend::testing
