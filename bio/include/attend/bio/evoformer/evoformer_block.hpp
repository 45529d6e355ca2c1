#pragma once
/// One Evoformer block (AF2 supplement, Alg. 6): the MSA stack, the communication from MSA to
/// pair and the pair stack, with residual updates and shared dropout, registered as
/// "evoformer_block".

#include <cstdint>

#include "attend/bio/evoformer/msa_column_attention.hpp"
#include "attend/bio/evoformer/msa_row_attention.hpp"
#include "attend/bio/evoformer/msa_transition.hpp"
#include "attend/bio/evoformer/outer_product_mean.hpp"
#include "attend/bio/evoformer/pair_transition.hpp"
#include "attend/bio/evoformer/triangle_attention.hpp"
#include "attend/bio/evoformer/triangle_multiplication.hpp"
#include "attend/core/module.hpp"
#include "attend/core/option_list.hpp"

namespace attend {
class Registry;
}

namespace attend::bio {

/// The JSON config, same keys. Defaults are the AF2 Evoformer's (supplement, section 1.6).
struct EvoformerBlockOptions {
  int64_t c_m = 0;                 ///< MSA channels (required)
  int64_t c_z = 0;                 ///< pair channels (required)
  int64_t c_hidden_msa_att = 32;   ///< channels per head of the MSA attentions
  int64_t c_hidden_opm = 32;       ///< outer product mean projection channels
  int64_t c_hidden_mul = 128;      ///< triangle multiplication channels
  int64_t c_hidden_pair_att = 32;  ///< channels per head of the triangle attentions
  int64_t n_heads_msa = 8;
  int64_t n_heads_pair = 4;
  int64_t transition_n = 4;        ///< hidden width factor of both transitions
  float msa_dropout = 0.15f;       ///< row-wise dropout after MSA row attention
  float pair_dropout = 0.25f;      ///< row-/column-wise dropout after the triangle updates
  int64_t chunk_size = 0;          ///< handed to every attention; 0 = automatic
  bool checkpoint = true;          ///< recompute the modules' intermediates in the backward (see forward)
  uint64_t seed = 0;               ///< seeds the initialisation

  /// The options declared once: keys, ranges, defaults and meanings (`attend layers --options
  /// evoformer_block`).
  static const OptionList<EvoformerBlockOptions>& option_list();
  static EvoformerBlockOptions from_json(const Json& config) { return option_list().from_json(config); }
  Json to_json() const { return option_list().to_json(*this); }
};

/// The block's output representations.
struct EvoformerState {
  Var m;  ///< [n_seq, n_res, c_m]
  Var z;  ///< [n_res, n_res, c_z]
};

/// The probabilities of a block's two triangle attentions (TriangleAttention::forward's
/// weights_out), [n_res, n_heads_pair, n_res, n_res] each.
struct TriangleAttentionWeights {
  Tensor starting, ending;
};

/// Children: msa_row_attention, msa_column_attention, msa_transition, outer_product_mean,
/// tri_mul_out, tri_mul_in, tri_att_start, tri_att_end, pair_transition.
class EvoformerBlock : public Module {
 public:
  explicit EvoformerBlock(EvoformerBlockOptions options);
  std::string type_name() const override { return "evoformer_block"; }
  Json config() const override { return options_.to_json(); }

  /// m [n_seq, n_res, c_m], z [n_res, n_res, c_z] -> updated (m, z) (AF2 Alg. 6). In
  /// training mode, the updates of MSA row attention and of the triangle multiplications and
  /// starting-node attention go through row-wise dropout (mask shared along axis 0), the
  /// ending-node attention's through column-wise dropout (shared along axis 1); the masks
  /// come from counter streams derived from `seed`, so they are the same for any thread count.
  /// With `checkpoint` (the default), the outgoing triangle multiplication runs through
  /// attend::recompute: the tape keeps only its input, and its intermediates exist only while
  /// it runs (forward) or is recomputed (backward), at the cost of a second forward (n_seq 128,
  /// n_res 256: 90 MiB of peak for about 75 ms CPU). The other eight modules keep theirs.
  /// With `triangle_weights`, the triangle attentions write their probabilities there (no
  /// gradient); the output is the same.
  EvoformerState forward(const Var& m, const Var& z, uint64_t seed = 0,
                         TriangleAttentionWeights* triangle_weights = nullptr) const;

  /// The block's MSA row attention probabilities at its input (m, z): [n_seq, n_heads_msa,
  /// n_res, n_res], each row of the MSA attending over its residues (AF2 Alg. 7 with the pair
  /// bias). No gradient; the same kernel as forward.
  Tensor msa_row_attention_weights(const Var& m, const Var& z) const;

  static void register_into(Registry& registry);

 private:
  EvoformerBlockOptions options_;
  const MsaRowAttention* msa_row_;
  const MsaColumnAttention* msa_col_;
  const MsaTransition* msa_transition_;
  const OuterProductMean* outer_product_mean_;
  const TriangleMultiplication* tri_mul_out_;
  const TriangleMultiplication* tri_mul_in_;
  const TriangleAttention* tri_att_start_;
  const TriangleAttention* tri_att_end_;
  const PairTransition* pair_transition_;
};

}  // namespace attend::bio
