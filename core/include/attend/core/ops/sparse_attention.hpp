#pragma once
/// Sparse (graph) multi-head attention: scores on the edges of a graph, an edge softmax over
/// each node's in-edges, attention dropout and weighted aggregation, fused into one op with
/// a hand-written backward. One of the two kernels of the shared attention core.

#include <cstdint>
#include <optional>

#include "attend/core/autodiff.hpp"
#include "attend/core/csr.hpp"

namespace attend::ops {

/// How the score e_ij[h] of an edge j -> i is computed, with the inputs it needs.
/// `src` holds the per-source-node term, `dst` the per-destination-node term.
struct SparseScores {
  enum class Rule {
    kGat,    ///< GAT: e = LeakyReLU(s_src[j, h] + s_dst[i, h])
    kGatV2,  ///< GATv2: e = sum_c att[h, c] LeakyReLU(x_src[j, h, c] + x_dst[i, h, c])
    kDot,    ///< scaled dot product: e = scale q[i, h] . (k[j, h] + edge[ij, h])
    kLogits, ///< given per edge: e = logits[ij, h]
  };

  /// GAT (Velickovic et al., 2018) from per-node terms s_src = a_src . W h_j and
  /// s_dst = a_dst . W h_i (see `head_dot`), both [N, H]. No per-edge tensor is made.
  static SparseScores gat(Var s_src, Var s_dst);
  /// GATv2 (Brody, Alon & Yahav, 2022): x_src = W_src h_j and x_dst = W_dst h_i [N, H, C'],
  /// att [H, C']. The LeakyReLU is applied edge by edge inside the kernel; no E x H x C'
  /// tensor is stored. The values are usually x_src.
  static SparseScores gatv2(Var x_src, Var x_dst, Var att);
  /// Scaled dot product (graph transformer): queries q [N, H, D] of destinations, keys
  /// k [N, H, D] of sources, optional projected edge features edge [E, H, D] indexed by edge
  /// id. As in PyTorch Geometric's TransformerConv (Shi et al., 2021), the edge term is added
  /// to the key in the score and to the value in the message (so D must equal the value
  /// channels C when `edge` is given).
  static SparseScores dot(Var q, Var k, Var edge = Var());
  /// Scores computed outside the kernel, one per edge and head: logits [E, H] indexed by
  /// edge id (relational attention, whose terms depend on the edge's relation, builds them
  /// from per-(node, relation) terms with two row gathers). Only an E x H tensor is made.
  static SparseScores precomputed(Var logits);

  Rule rule = Rule::kGat;
  Var src;   ///< s_src [N, H] | x_src [N, H, C'] | k [N, H, D]
  Var dst;   ///< s_dst [N, H] | x_dst [N, H, C'] | q [N, H, D]
  Var att;   ///< GATv2 only: att [H, C']
  Var edge;  ///< dot only, optional: edge [E, H, D] indexed by edge id
  Var logits;  ///< precomputed only: logits [E, H] indexed by edge id (src, dst undefined)
};

/// Options of `sparse_attention`; the names follow PyTorch Geometric.
struct SparseAttentionOptions {
  float negative_slope = 0.2f;  ///< LeakyReLU slope of the gat and gatv2 rules
  float dropout = 0.0f;         ///< attention dropout probability in [0, 1), when training
  uint64_t seed = 0;            ///< dropout stream: the same seed gives the same mask
  bool training = false;        ///< dropout is applied only when training
  std::optional<float> scale;   ///< dot rule score scale; default 1 / sqrt(D)
};

/// out[i, h, :] = sum over in-edges j -> i of alpha_ij[h] (values[j, h, :] (+ edge[ij, h, :]))
/// with alpha = dropout(softmax over the in-edges of i of e_ij[h]) and e given by `scores`.
/// graph: destination-major Csr with N nodes; values [N, H, C]; result [N, H, C]. Nodes
/// without in-edges get zeros. Dropout keeps an edge-head pair when
/// counter_uniform(seed, edge_id * H + h) >= p and scales kept weights by 1 / (1 - p), so the
/// mask depends on the seed and the edge ids only.
///
/// When the graph carries an edge scale s [E] (Csr::edge_scale, e.g. an explanation's soft
/// edge mask), each message is multiplied by it after the softmax, which it leaves unchanged:
/// out[i, h, :] = sum_j alpha_ij[h] s_ij (values[j, h, :] (+ edge[ij, h, :])), as PyTorch
/// Geometric's explain mode (MessagePassing.explain_message scales the message, alpha
/// included). s gets a gradient when it requires one. Without a scale nothing changes.
///
/// When `weights_out` is given it receives the softmax probabilities [E, H] (before dropout)
/// keyed by edge id. DEVIATION: PyTorch Geometric returns them after dropout; we return the
/// distribution itself, which is what attention maps are exported for (equal when not
/// training).
///
/// Parallel strategy: forward over fixed blocks of destination rows (scores, max-subtracted
/// softmax, dropout, aggregation per row); the probabilities [E, H] are kept for backward.
/// Backward: one pass over destination rows (softmax backward, gradients of destination
/// terms, edge features and att as per-block partial sums added in block order), then one
/// pass over source rows through the cached transpose (gradients of values and source
/// terms). Every output element is written by one row, with no atomics, so outputs and
/// gradients are bit-identical for any thread count. Memory: O(E H) besides inputs; no
/// E x H x C tensor is ever made.
Var sparse_attention(const Csr& graph, const SparseScores& scores, const Var& values,
                     const SparseAttentionOptions& options = {}, Tensor* weights_out = nullptr);

}  // namespace attend::ops
