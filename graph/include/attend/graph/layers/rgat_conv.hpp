#pragma once
/// RgatConv: relational graph attention (Busbridge et al., "Relational Graph Attention
/// Networks", 2019), registered as "rgat": WIRGAT (softmax within each relation's
/// neighbours) or ARGAT (softmax across all relations), additive or multiplicative logits.
/// Option names follow PyTorch Geometric's RGATConv.

#include <cstdint>
#include <string>

#include "attend/graph/layers/relation_projection.hpp"
#include "attend/core/option_list.hpp"
#include "attend/graph/layers/attention_layer.hpp"
#include "attend/graph/node_layer.hpp"

namespace attend {
class Registry;
}

namespace attend::graph {

/// The JSON config, same keys (heads, concat, dropout and input_dropout: AttentionHeadsOptions).
struct RgatOptions : AttentionHeadsOptions {
  int64_t in_channels = 0;      ///< input features (required)
  int64_t out_channels = 0;     ///< features per head (required)
  int64_t num_relations = 0;    ///< relation types R (required; "auto" is resolved by the caller)
  int64_t num_bases = 0;        ///< B bases of the decomposition; 0 = one full weight per relation
  float negative_slope = 0.2f;  ///< LeakyReLU slope of the attention logits
  bool add_self_loops = true;   ///< attend over the looped view (self relation = its own W_r)
  bool bias = true;
  /// "across-relation" (ARGAT, PyG's default: one softmax over all in-edges of a node) or
  /// "within-relation" (WIRGAT: one softmax per relation's in-edges, summed over relations).
  enum class Mechanism { kAcrossRelation, kWithinRelation } attention_mechanism = Mechanism::kAcrossRelation;
  /// "additive-self-attention" (e = LeakyReLU(q_i + k_j)) or "multiplicative-self-attention"
  /// (e = q_i k_j), as PyG's RGATConv with dim 1.
  enum class Mode { kAdditive, kMultiplicative } attention_mode = Mode::kAdditive;
  /// Not in PyG. "glorot", or "zeros": the logits start at zero (additive: both kernels zero;
  /// multiplicative: the query kernel zero), so a within-relation layer starts as R-GCN.
  enum class Init { kGlorot, kZeros } attention_init = Init::kGlorot;
  uint64_t seed = 0;            ///< seeds the Glorot initialisation

  /// The options above as the JSON config's keys, with their ranges and meanings.
  static const OptionList<RgatOptions>& option_list();
  static RgatOptions from_json(const Json& config);
  Json to_json() const;
};

/// Parameters: weight [in, R*H*C] or basis [in, B*H*C] + comp [R, B] (see RelationWeights),
/// att_src [H, C] and att_dst [H, C] (Glorot), bias [H*C or C] (zeros).
/// Forward (Busbridge et al. 2019, Eq. 3-6):
/// g_j^r = W_r x_j as [H, C] for every node and relation;
/// q_i^r = att_dst . g_i^r and k_j^r = att_src . g_j^r per head (the paper's query and key
/// kernels, one vector per head); e_ij^r = LeakyReLU(q_i^r + k_j^r) (additive) or
/// q_i^r k_j^r (multiplicative);
/// alpha_ij^r = softmax over ALL in-edges of i, of every relation (across-relation, ARGAT), or
/// over the in-edges of i of relation r only (within-relation, WIRGAT; with equal logits this
/// is R-GCN's 1 / |N_i^r|); attention dropout after;
/// h_i' = sum_r sum_j alpha_ij^r g_j^r; heads concatenated or averaged; + bias.
/// Only the (node, relation) slots that edges use are projected (ops::slot_matmul over
/// GraphContext::relational_index); their terms [S, H] come from ops::head_dot; two row
/// gathers make the logits [E, H]; ops::sparse_attention (precomputed rule) runs the softmax
/// and aggregation over the index's Csr (sources are slots, destinations are nodes), so no
/// E x H x C tensor is made. Within-relation attention runs the same kernel over the index's
/// within_csr (destinations are slots), then sums each node's slots with one sparse matmul.
/// Memory: S * H * C for the projections, S <= 2 E + N.
/// DEVIATION: with add_self_loops (default) the self-loop relation of the context takes part
/// like any relation (within-relation: the node's own W_self x_i, R-GCN's root weight);
/// PyG's RGATConv adds no self-loops. PyG's cardinality-preserving `mod`, `num_blocks`,
/// `dim` > 1 and edge features are not offered.
class RgatConv : public NodeLayer {
 public:
  explicit RgatConv(RgatOptions options);
  std::string type_name() const override { return "rgat"; }
  Json config() const override { return options_.to_json(); }
  Var forward(const NodeFeatures& x, const GraphContext& graph, uint64_t seed,
              AttentionExport* attention = nullptr) const override;
  int64_t out_features() const override;

  static void register_into(Registry& registry);

 private:
  RgatOptions options_;
  RelationWeights weights_;
  Var att_src_, att_dst_, bias_;
};

}  // namespace attend::graph
