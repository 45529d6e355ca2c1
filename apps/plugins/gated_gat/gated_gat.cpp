// gated_gat: an attend plugin with one layer, "gated_gat": a GAT layer (Velickovic et al.,
// ICLR 2018) whose output is mixed, node by node and channel by channel, with a linear skip
// path through a learned sigmoid gate, as in Highway Networks (Srivastava et al., 2015):
//
//   g   = sigmoid(x W_gate + b_gate)      // [N, out], the gate
//   s   = x W_skip                         // [N, out], the skip path
//   out = s + g * (gat(x) - s)             // = g * gat(x) + (1 - g) * s
//
// The layer is a forward-only composition of attend ops and of the built-in GAT layer, so the
// autodiff tape gives its backward: a plugin layer needs no backward of its own.
#include <memory>

#include <attend/core/init.hpp>
#include <attend/core/ops/activation.hpp>
#include <attend/core/ops/elementwise.hpp>
#include <attend/core/option_list.hpp>
#include <attend/core/plugin.hpp>
#include <attend/core/random.hpp>
#include <attend/core/registry.hpp>
#include <attend/graph/layers/gat_conv.hpp>
#include <attend/graph/node_layer.hpp>

namespace gated_gat {

using attend::Json;
using attend::Var;
using attend::graph::GatOptions;

/// The options: those of "gat" (its option list, with its ranges and meanings) but
/// `residual`, since the gated skip path is the residual, and the gat layer's own
/// `input_dropout`: this layer drops input features once, for the attention and both
/// projections.
struct GatedGatOptions {
  GatOptions gat;
  float input_dropout = 0.0f;

  static const attend::OptionList<GatedGatOptions>& option_list() {
    using O = GatedGatOptions;
    static const attend::OptionList<O> list =
        attend::OptionList<O>("gated_gat")
            .include(&O::gat, GatOptions::option_list(), {"residual", "input_dropout"})
            .add("input_dropout", &O::input_dropout,
                 "dropout on the input features, once for the attention and both projections (training)",
                 attend::OptionRange::fraction());
    return list;
  }
  static GatedGatOptions from_json(const Json& config) { return option_list().from_json(config); }
  Json to_json() const { return option_list().to_json(*this); }
};

/// Parameters: the GAT layer's (as child "gat"), gate_weight [in, out], gate_bias [out]
/// (zeros, so the gate starts half open), skip_weight [in, out].
class GatedGatConv : public attend::graph::NodeLayer {
 public:
  explicit GatedGatConv(GatedGatOptions o) : options_(std::move(o)) {
    gat_ = &add_child("gat", std::make_unique<attend::graph::GatConv>(options_.gat));
    const int64_t in = options_.gat.in_channels, out = gat_->out_features();
    attend::Rng rng(attend::mix64(options_.gat.seed ^ 0x6a7e));
    gate_weight_ = add_parameter("gate_weight", attend::init::glorot_uniform({in, out}, in, out, rng));
    gate_bias_ = add_parameter("gate_bias", attend::init::zeros({out}));
    skip_weight_ = add_parameter("skip_weight", attend::init::glorot_uniform({in, out}, in, out, rng));
  }

  std::string type_name() const override { return "gated_gat"; }
  Json config() const override { return options_.to_json(); }
  int64_t out_features() const override { return gat_->out_features(); }

  Var forward(const attend::graph::NodeFeatures& x, const attend::graph::GraphContext& graph, uint64_t seed,
              attend::graph::AttentionExport* attention = nullptr) const override {
    using namespace attend::ops;
    const attend::graph::NodeFeatures xd =
        attend::graph::dropout(x, options_.input_dropout, attend::mix64(seed ^ 1), is_training());
    Var a = gat_->forward(xd, graph, attend::mix64(seed ^ 2), attention);                   // [N, out]
    Var g = sigmoid(add(attend::graph::project(xd, gate_weight_), gate_bias_));            // [N, out]
    Var s = attend::graph::project(xd, skip_weight_);                                      // [N, out]
    return add(s, mul(g, sub(a, s)));                                                      // [N, out]
  }

 private:
  GatedGatOptions options_;
  const attend::graph::GatConv* gat_ = nullptr;
  Var gate_weight_, gate_bias_, skip_weight_;
};

/// Add "gated_gat" to the registry the loader hands over.
void register_layers(attend::Registry& registry) {
  registry.add("gated_gat", [](const Json& config) -> std::unique_ptr<attend::Module> {
    return std::make_unique<GatedGatConv>(GatedGatOptions::from_json(config));
  });
  registry.document("gated_gat", GatedGatOptions::option_list().docs());  // attend layers --options gated_gat
}

}  // namespace gated_gat

ATTEND_PLUGIN("gated_gat", "1.0.0", gated_gat::register_layers)
