#pragma once
/// Fused dense multi-head attention: the one attention primitive behind MSA row and column
/// attention, triangle attention, dense graph transformers and factored attention.

#include <cstdint>
#include <vector>

#include "attend/core/autodiff.hpp"

namespace attend::ops {

/// Options of `dense_attention`. Every field is optional.
struct DenseAttentionOptions {
  /// Additive biases on the logits, each broadcastable to [B, H, Nq, Nk]: rank <= 4, aligned
  /// from the right, every axis either full or 1 (a pair bias [B, 1, Nq, Nk] or
  /// [1, H, Nq, Nk], a mask bias [B, 1, 1, Nk], ...). A bias that requires a gradient gets the
  /// sum of the logit gradient over its broadcast axes.
  std::vector<Var> biases;
  /// Key mask [B, Nk] or [1, Nk]; nonzero = keep. Masked keys get logit -inf. A row whose keys
  /// are all masked yields zeros and zero gradients. Must stay alive during the call only.
  const Tensor* key_mask = nullptr;
  /// Hide key j from query i when j > i (top-left aligned, as PyTorch's `is_causal`: with
  /// Nq != Nk, query i still sees keys 0..i, so with Nq > Nk rows i >= Nk see every key).
  bool causal = false;
  /// Optional gate [B, H, Nq, dv]: the result is sigmoid(gate) * attention. Undefined = none.
  Var gate;
  /// Logit scale; 0 means 1/sqrt(d).
  float scale = 0.0f;
  /// Query rows one work item keeps in flight (accumulators chunk x dv per thread), rounded up
  /// to a multiple of the 64-row query tile; 0 = automatic (256). Results do not depend on it.
  int64_t chunk_size = 0;
  /// Also return the attention probabilities in `weights_out` ([B, H, Nq, Nk], no gradient).
  bool return_weights = false;
};

/// softmax(scale * q k^T + sum(biases) + mask) v, optionally gated, for q [B, H, Nq, d],
/// k [B, H, Nk, d], v [B, H, Nk, dv] -> [B, H, Nq, dv].
///
/// Algorithm: FlashAttention-2 (Dao, 2023) on the CPU. The forward runs over key tiles with an
/// online softmax (running max and sum per query row) and keeps only the log-sum-exp
/// [B, H, Nq] for the backward, so no [Nq, Nk] score matrix is ever stored (unless weights are
/// asked for). Each (64-query x 128-key) block of scores is one small single-threaded product
/// by a register-blocked kernel that needs no packing (P V is another); every product is an
/// in-order multiply-add chain per element, so a row's result never depends on its tile.
///
/// Parallel strategy, deterministic for any thread count: the forward splits into work items
/// (b, h, query chunk); every query row is computed the same way whatever the chunk. The
/// backward recomputes the probabilities tile by tile from the log-sum-exp, in one pass over
/// work items (b, h, key segment): each item owns dK, dV and the bias gradients of its keys
/// (heads or batches are folded into one item when a bias that needs a gradient is broadcast
/// over them) and adds dQ into its own partial buffer when there are several key segments
/// (at most 4, only when there are fewer than 16 (b, h) items); the partials are then summed
/// in segment order. No atomics anywhere. Scratch memory is a few tiles per thread.
///
/// When `options.return_weights` is set, `weights_out` must be given and receives the
/// probabilities [B, H, Nq, Nk] (zeros on masked keys and fully masked rows); otherwise
/// `weights_out` is left alone and nothing of size Nq x Nk is allocated.
Var dense_attention(const Var& q, const Var& k, const Var& v,
                    const DenseAttentionOptions& options = {}, Tensor* weights_out = nullptr);

}  // namespace attend::ops
