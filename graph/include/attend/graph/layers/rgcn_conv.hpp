#pragma once
/// RgcnConv: the relational graph convolution of Schlichtkrull et al., "Modeling Relational
/// Data with Graph Convolutional Networks" (ESWC 2018), with basis decomposition, registered
/// as "rgcn". Options follow PyTorch Geometric's RGCNConv.

#include <cstdint>

#include "attend/graph/layers/relation_projection.hpp"
#include "attend/core/option_list.hpp"
#include "attend/graph/node_layer.hpp"

namespace attend {
class Registry;
}

namespace attend::graph {

/// The JSON config, same keys.
struct RgcnOptions {
  int64_t in_channels = 0;     ///< input features (required)
  int64_t out_channels = 0;    ///< output features (required)
  int64_t num_relations = 0;   ///< relation types R (required; the caller resolves "auto" to
                               ///< GraphContext::num_relations())
  int64_t num_bases = 0;       ///< B bases of the decomposition; 0 = one full weight per relation
  bool root_weight = true;     ///< add the self-connection W_0 x_i
  bool bias = true;
  float input_dropout = 0.0f;  ///< dropout on the input features (training)
  uint64_t seed = 0;           ///< seeds the Glorot initialisation

  /// The options above as the JSON config's keys, with their ranges and meanings.
  static const OptionList<RgcnOptions>& option_list();
  static RgcnOptions from_json(const Json& config);
  Json to_json() const;
};

/// Parameters: weight [in, R*C] or basis [in, B*C] + comp [R, B] (see RelationWeights),
/// root [in, C] when root_weight, bias [C] (zeros).
/// Forward (Schlichtkrull et al. 2018, Eq. 2 with 1/c_ir = 1/|N_i^r|):
/// h_i' = sum_r sum_{j in N_i^r} W_r x_j / |N_i^r| + W_0 x_i + b over the plain view (the
/// self-connection is the separate root weight, as in the paper; the context's self-loop
/// relation has no edges there). Only the (source, relation) slots that edges use are
/// projected (ops::slot_matmul over GraphContext::relational_index, a row lookup for sparse
/// identity inputs); one constant sparse product with the index's `mean` matrix [N, S] then
/// sums the per-relation means.
class RgcnConv : public NodeLayer {
 public:
  explicit RgcnConv(RgcnOptions options);
  std::string type_name() const override { return "rgcn"; }
  Json config() const override { return options_.to_json(); }
  /// `attention` is left untouched (the layer does not attend).
  Var forward(const NodeFeatures& x, const GraphContext& graph, uint64_t seed,
              AttentionExport* attention = nullptr) const override;
  int64_t out_features() const override { return options_.out_channels; }

  static void register_into(Registry& registry);

 private:
  RgcnOptions options_;
  RelationWeights weights_;
  Var root_, bias_;
};

}  // namespace attend::graph
