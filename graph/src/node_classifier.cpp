#include "attend/graph/node_classifier.hpp"

#include "attend/core/error.hpp"
#include "attend/core/ops/activation.hpp"
#include "attend/core/options_json.hpp"
#include "attend/core/quoted_input.hpp"
#include "attend/core/random.hpp"
#include "attend/core/registry.hpp"

namespace attend::graph {

namespace {
// Holds the layers so their parameters are named layers.<i>.<name>.
class LayerList : public Module {
 public:
  std::string type_name() const override { return "layer_list"; }
  Json config() const override { return Json::array(); }
  template <class M>
  M& add(std::unique_ptr<M> layer, std::size_t index) {
    return add_child(std::to_string(index), std::move(layer));
  }
};

Var activate(const Var& x, const std::string& activation) {
  if (activation == "elu") return ops::elu(x);
  if (activation == "relu") return ops::relu(x);
  return x;  // "none"
}
}  // namespace

NodeClassifier::NodeClassifier(const Json& config, const Registry& registry) : config_(config) {
  const std::string me = "node_classifier";
  check_option_keys(config, {"layers", "activation"}, me);
  activation_ = option_or<std::string>(config, "activation", "elu", me);
  if (activation_ != "elu" && activation_ != "relu" && activation_ != "none") {
    throw InputError(me + ": activation must be elu, relu or none, got " + quoted_input(activation_));
  }
  if (!config.contains("layers") || !config["layers"].is_array() || config["layers"].empty()) {
    throw InputError(me + ": 'layers' must be a non-empty array of {\"type\", \"config\"}");
  }
  auto& list = add_child("layers", std::make_unique<LayerList>());
  int64_t width = -1;
  for (std::size_t i = 0; i < config["layers"].size(); ++i) {
    const Json& spec = config["layers"][i];
    if (!spec.is_object() || !spec.contains("type") || !spec["type"].is_string()) {
      throw InputError(me + ": layer " + std::to_string(i) + " needs a string 'type'");
    }
    const std::string type = spec["type"].get<std::string>();
    std::unique_ptr<Module> module = registry.create(type, spec.value("config", Json::object()));
    auto* layer = dynamic_cast<NodeLayer*>(module.get());
    if (layer == nullptr) {
      throw InputError(me + ": layer " + std::to_string(i) + " (" + quoted_input(type) + ") is not a node layer");
    }
    module.release();
    std::unique_ptr<NodeLayer> owned(layer);
    const Json layer_config = owned->config();
    if (width >= 0 && layer_config.contains("in_channels") && layer_config["in_channels"].get<int64_t>() != width) {
      throw InputError(me + ": layer " + std::to_string(i) + " takes " + layer_config["in_channels"].dump() +
                       " features but layer " + std::to_string(i - 1) + " gives " + std::to_string(width));
    }
    width = owned->out_features();
    layers_.push_back(&list.add(std::move(owned), i));
  }
}

Var NodeClassifier::forward(const NodeFeatures& x, const GraphContext& graph, uint64_t seed,
                            std::vector<AttentionExport>* attention) const {
  if (attention) attention->assign(layers_.size(), AttentionExport{});
  NodeFeatures h = x;
  Var out;
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    out = layers_[i]->forward(h, graph, mix64(seed + i), attention ? &(*attention)[i] : nullptr);
    if (i + 1 < layers_.size()) out = activate(out, activation_);
    h = NodeFeatures(out);
  }
  return out;
}

void NodeClassifier::register_into(Registry& registry) {
  registry.add("node_classifier", [&registry](const Json& config) -> std::unique_ptr<Module> {
    return std::make_unique<NodeClassifier>(config, registry);
  });
}

}  // namespace attend::graph
