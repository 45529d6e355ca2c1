#pragma once
/// Attention rollout (Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers")
/// through a sparse graph, and the reduction of a layer's heads to one weight per edge.
///
/// Layer l (1..L) has, per edge e = j -> i of the graph it attends over, one weight w_l[e]
/// (for GAT: alpha_ij, which sums to 1 over the in-edges of i, self-loop included). Its
/// matrix is A_l[i, j] = sum of w_l over the edges j -> i. Abnar & Zuidema multiply the
/// layers' matrices, A_L A_{L-1} ... A_1, after adding the identity for the residual
/// connection; in a graph layer the self-loop edge j = i *is* that path (its weight is part
/// of the softmax), so no identity is added: a layer without self-loops passes nothing on
/// along a node's own row. Rollout from the target t runs as a flow backwards through the
/// layers, O(L E):
///   r_L = e_t;  flow_l[e] = r_l[i] w_l[e] for e = j -> i;  r_{l-1}[j] = sum over e = j -> * of flow_l[e].
/// So r_0 = e_t^T A_L ... A_1 (how much of the target's output each input node carries) and
/// flow_l[e] is the share of the target's attention that passes through edge e in layer l.
/// An edge's rollout score is its flow summed over the layers; self-loops carry flow but are
/// not edges of the explanation.

#include <cstdint>
#include <string>
#include <vector>

#include "attend/core/tensor.hpp"

namespace attend::graph {

/// One layer's attention: edge e goes src[e] -> dst[e] with weight[e].
struct LayerAttention {
  std::vector<int64_t> src, dst;  ///< [E_l]
  std::vector<float> weight;      ///< [E_l]
};

struct AttentionRollout {
  std::vector<double> node;               ///< [N] r_0
  std::vector<std::vector<double>> edge;  ///< [L][E_l] flow_l, layer 1 first
};

/// The rollout from `target` over `layers` (layer 1 first) of a graph of `num_nodes` nodes.
AttentionRollout attention_rollout(int64_t num_nodes, const std::vector<LayerAttention>& layers, int64_t target);

enum class HeadReduction { kMean, kMax };
/// "mean" or "max"; throws attend::InputError otherwise.
HeadReduction head_reduction_from_name(const std::string& name);

/// weights [E, H] -> [E]: the mean or the maximum over the heads.
std::vector<float> reduce_heads(const Tensor& weights, HeadReduction reduction);

}  // namespace attend::graph
