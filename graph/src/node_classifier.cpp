#include "attend/graph/node_classifier.hpp"

#include "attend/core/error.hpp"
#include "attend/core/ops/activation.hpp"
#include "attend/core/ops/l2_normalize.hpp"
#include "attend/core/ops/shape.hpp"
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

bool known_activation(const std::string& activation) {
  return activation == "elu" || activation == "relu" || activation == "none";
}

Var activate(const Var& x, const std::string& activation) {
  if (activation == "elu") return ops::elu(x);
  if (activation == "relu") return ops::relu(x);
  return x;  // "none"
}
}  // namespace

NodeClassifier::NodeClassifier(const Json& config, const Registry& registry) : config_(config) {
  const std::string me = "node_classifier";
  check_option_keys(config, {"layers", "activation", "jumping_knowledge", "normalize_hidden"}, me);
  normalize_hidden_ = option_or<bool>(config, "normalize_hidden", false, me);
  activation_ = option_or<std::string>(config, "activation", "elu", me);
  if (!known_activation(activation_)) {
    throw InputError(me + ": activation must be elu, relu or none, got " + quoted_input(activation_));
  }
  const std::string jumping_knowledge = option_or<std::string>(config, "jumping_knowledge", "none", me);
  if (jumping_knowledge != "none" && jumping_knowledge != "cat") {
    throw InputError(me + ": jumping_knowledge must be none or cat, got " + quoted_input(jumping_knowledge));
  }
  concat_hidden_ = jumping_knowledge == "cat";
  if (!config.contains("layers") || !config["layers"].is_array() || config["layers"].empty()) {
    throw InputError(me + ": 'layers' must be a non-empty array of {\"type\", \"config\"}");
  }
  const std::size_t count = config["layers"].size();
  if (concat_hidden_ && count < 2) {
    throw InputError(me + ": jumping_knowledge \"cat\" needs at least one hidden layer before the last");
  }
  auto& list = add_child("layers", std::make_unique<LayerList>());
  int64_t width = -1;         // what the next layer of the chain reads
  int64_t hidden_width = 0;   // sum of the hidden layers' widths (what a "cat" head reads)
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
    const bool head_reads_all = concat_hidden_ && i + 1 == count;
    if (head_reads_all) width = hidden_width;
    if (width >= 0 && layer_config.contains("in_channels") && layer_config["in_channels"].get<int64_t>() != width) {
      throw InputError(me + ": layer " + std::to_string(i) + " takes " + layer_config["in_channels"].dump() +
                       " features but " +
                       (head_reads_all ? "the concatenated hidden layers give " : "layer " + std::to_string(i - 1) + " gives ") +
                       std::to_string(width));
    }
    if (owned->normalizes_previous_layer()) {
      if (i == 0 || i + 1 == count) {
        throw InputError(me + ": layer " + std::to_string(i) + " (" + quoted_input(type) +
                         ") normalises the layer before it: it cannot be the first or the last layer");
      }
      hidden_width -= width;  // its output replaces the previous layer's in the concatenation
    }
    width = owned->out_features();
    hidden_width += width;
    std::string activation = activation_;
    if (spec.contains("activation")) {
      if (!spec["activation"].is_string() || !known_activation(spec["activation"].get<std::string>())) {
        throw InputError(me + ": layer " + std::to_string(i) + "'s activation must be elu, relu or none, got " +
                         spec["activation"].dump());
      }
      if (i + 1 == count || owned->normalizes_previous_layer()) {
        throw InputError(me + ": layer " + std::to_string(i) + " (" + quoted_input(type) +
                         ") cannot carry an activation: the last layer has none and a normalising layer's is the one "
                         "of the layer it normalises");
      }
      activation = spec["activation"].get<std::string>();
    }
    if (owned->normalizes_previous_layer()) activation = layer_activation_.back();
    layer_activation_.push_back(activation);
    layers_.push_back(&list.add(std::move(owned), i));
  }
}

Var NodeClassifier::forward(const NodeFeatures& x, const GraphContext& graph, uint64_t seed,
                            std::vector<AttentionExport>* attention) const {
  if (attention) attention->assign(layers_.size(), AttentionExport{});
  NodeFeatures h = x;
  std::vector<Var> hidden;  // the activated outputs of layers 0..L-2, [N, C_i] each
  Var out;
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    const bool last = i + 1 == layers_.size();
    if (last && concat_hidden_) h = NodeFeatures(ops::concat(hidden));  // [N, C_1 + ... + C_{L-1}]
    out = layer_forward(i, h, graph, seed, attention ? &(*attention)[i] : nullptr);
    if (joins_head_input(i)) hidden.push_back(out);
    h = NodeFeatures(out);
  }
  return out;
}

Var NodeClassifier::layer_forward(std::size_t i, const NodeFeatures& h, const GraphContext& graph, uint64_t seed,
                                  AttentionExport* attention) const {
  return finish_layer(i, unfinished_layer_forward(i, h, graph, seed, attention));
}

Var NodeClassifier::unfinished_layer_forward(std::size_t i, const NodeFeatures& h, const GraphContext& graph,
                                             uint64_t seed, AttentionExport* attention) const {
  return layers_[i]->forward(h, graph, mix64(seed + i), attention);  // [N, C_i]
}

Var NodeClassifier::finish_layer(std::size_t i, const Var& out) const {
  const bool last = i + 1 == layers_.size();
  const bool normalizer = layers_[i]->normalizes_previous_layer();
  Var y = out;
  if (!last && normalize_hidden_ && !normalizer) y = ops::l2_normalize(y);  // [M, C_i], unit rows
  if (!last && !followed_by_normalizer(i)) y = activate(y, layer_activation_[i]);
  return y;
}

int NodeClassifier::message_passing_hops() const {
  int hops = 0;
  for (const NodeLayer* layer : layers_) hops += layer->passes_messages() ? 1 : 0;
  return hops;
}

bool NodeClassifier::followed_by_normalizer(std::size_t i) const {
  return i + 1 < layers_.size() && layers_[i + 1]->normalizes_previous_layer();
}

bool NodeClassifier::joins_head_input(std::size_t i) const {
  return concat_hidden_ && i + 1 < layers_.size() && !followed_by_normalizer(i);
}

void NodeClassifier::register_into(Registry& registry) {
  registry.add("node_classifier", [&registry](const Json& config) -> std::unique_ptr<Module> {
    return std::make_unique<NodeClassifier>(config, registry);
  });
}

}  // namespace attend::graph
