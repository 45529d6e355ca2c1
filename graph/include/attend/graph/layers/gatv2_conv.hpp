#pragma once
/// GatV2Conv: the dynamic graph attention layer of Brody, Alon & Yahav, "How Attentive are
/// Graph Attention Networks?" (ICLR 2022), registered as "gatv2". Options follow PyTorch
/// Geometric's GATv2Conv.

#include <cstdint>

#include "attend/core/option_list.hpp"
#include "attend/graph/layers/attention_layer.hpp"
#include "attend/graph/node_layer.hpp"

namespace attend {
class Registry;
}

namespace attend::graph {

/// The JSON config, same keys (heads, concat, dropout, input_dropout, residual and bias:
/// AttentionEndingOptions).
struct GatV2Options : AttentionEndingOptions {
  int64_t in_channels = 0;      ///< input features (required)
  int64_t out_channels = 0;     ///< features per head (required)
  float negative_slope = 0.2f;  ///< LeakyReLU slope inside the attention scores
  bool add_self_loops = true;   ///< attend over the graph with one self-loop per node
  bool share_weights = false;   ///< one projection for sources and destinations (W_src == W_dst)
  uint64_t seed = 0;            ///< seeds the Glorot initialisation

  /// The options above as the JSON config's keys, with their ranges and meanings.
  static const OptionList<GatV2Options>& option_list();
  static GatV2Options from_json(const Json& config);
  Json to_json() const;
};

/// Parameters: weight_src [in, H*C] and weight_dst [in, H*C] (one `weight` when
/// share_weights), att [H, C] (Glorot), bias [H*C or C] (zeros), res_weight [in, H*C or C]
/// when residual. DEVIATION: PyG's two projections also carry a bias each; ours have none
/// (the output bias remains).
/// Forward: x_src = x W_src, x_dst = x W_dst as [N, H, C];
/// e_ij = att . LeakyReLU(x_src[j] + x_dst[i]) per head, computed edge by edge inside
/// ops::sparse_attention (rule gatv2, no E x H x C tensor); softmax over in-edges, attention
/// dropout, aggregation of x_src[j]; heads concatenated or averaged; + residual + bias.
class GatV2Conv : public NodeLayer {
 public:
  explicit GatV2Conv(GatV2Options options);
  std::string type_name() const override { return "gatv2"; }
  Json config() const override { return options_.to_json(); }
  Var forward(const NodeFeatures& x, const GraphContext& graph, uint64_t seed,
              AttentionExport* attention = nullptr) const override;
  int64_t out_features() const override;

  static void register_into(Registry& registry);

 private:
  GatV2Options options_;
  Var weight_src_, weight_dst_, att_, bias_, res_weight_;
};

}  // namespace attend::graph
