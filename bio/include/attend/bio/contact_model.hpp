#pragma once
/// The supervised contact model, registered as "contact_model": an input embedding in the
/// manner of AF2 (supplement Alg. 3 and 4), a stack of Evoformer blocks (Alg. 6) and a binary
/// contact head on the symmetrised pair representation.
///
///   m  = Linear(msa) + Linear(target)                       [S, W, c_m]
///   z  = Linear_a(target)_i + Linear_b(target)_j            [W, W, c_z]
///        + Embedding(clip(pos_i - pos_j, -r, r) + r)        (relative positions, Alg. 4)
///        + Linear(pair)                                     (the coevolution score)
///   (m, z) = EvoformerBlock_b(m, z) for b = 1..blocks
///   logits = pair . w_p + b + Linear(LayerNorm((z + z^T) / 2))   [W, W], symmetric
///
/// The skip path pair . w_p + b (pair: the standardised potts APC score of the pair and, with
/// `neighbour_scores`, its three neighbour means (contact_features.hpp), so the skip is a
/// learned symmetric 3 x 3 filter of the score map; w_p starts at (1, 0, 0, 0), b at
/// kInitialPottsBias) carries the coevolution signal straight to the logit
/// and the head (weights and bias 0 at initialisation, as AF2's final layers) learns a
/// correction, the usual way learned contact predictors build on coevolution features: the
/// untrained model ranks pairs exactly as potts does, and training starts from there.
///
/// DEVIATION: AF2 predicts distogram bins; we predict the binary contact (< 8 A) with a
/// logistic loss, and the pair input carries the potts APC score (contact_features.hpp).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "attend/bio/contact_features.hpp"
#include "attend/bio/evoformer/evoformer_block.hpp"
#include "attend/core/layers/linear.hpp"
#include "attend/core/module.hpp"

namespace attend {
class Registry;
}

namespace attend::bio {

namespace evoformer_detail {
class LayerNormModule;
}

/// The block options the contact model starts from: small widths, no recomputation.
inline EvoformerBlockOptions small_evoformer_block() {
  EvoformerBlockOptions b;
  b.c_hidden_msa_att = 8;
  b.c_hidden_opm = 8;
  b.c_hidden_mul = 16;
  b.c_hidden_pair_att = 8;
  b.n_heads_msa = 4;
  b.n_heads_pair = 2;
  b.transition_n = 2;
  b.checkpoint = false;
  return b;
}

/// The JSON config, same keys: the block's options are keys of the same object.
struct ContactModelOptions {
  int64_t c_m = 16;                ///< MSA channels
  int64_t c_z = 16;                ///< pair channels
  int64_t blocks = 1;              ///< Evoformer blocks
  int64_t max_relative_position = 32;  ///< r: relative positions are clipped to [-r, r]
  int64_t msa_depth = 64;          ///< sequences (query included) read at prediction time
  /// The pair input carries the score's neighbour means (kNeighbourPairFeatures channels)
  /// besides the score itself; false: the score only (models written before the option).
  bool neighbour_scores = false;
  /// The options of every Evoformer block (evoformer_block.hpp; its c_m, c_z and seed come
  /// from this struct); the defaults suit a small model.
  EvoformerBlockOptions block = small_evoformer_block();
  uint64_t seed = 0;               ///< seeds the initialisation

  /// The options declared once (`attend layers --options contact_model`).
  static const OptionList<ContactModelOptions>& option_list();
  /// Read from JSON (absent keys keep the defaults); bad values throw attend::InputError.
  static ContactModelOptions from_json(const Json& config) { return option_list().from_json(config); }
  Json to_json() const { return option_list().to_json(*this); }
};

/// Initial bias of the skip path: sigmoid(-3) = 0.05, a contact prior of the order of the
/// contact fraction among pairs at least 6 apart (it sets the starting loss, not the ranking).
inline constexpr float kInitialPottsBias = -3.0f;

/// Children: msa_embed, target_msa, target_left, target_right, relpos, pair_embed,
/// evoformer.<b>, head_norm, head; parameters potts_weight [F] and potts_bias [1], with F =
/// pair_feature_count(neighbour_scores).
class ContactModel : public Module {
 public:
  explicit ContactModel(ContactModelOptions options);
  std::string type_name() const override { return "contact_model"; }
  Json config() const override { return options_.to_json(); }
  const ContactModelOptions& options() const { return options_; }

  /// Contact logits [W, W] (symmetric) for `input` (contact_features.hpp). In training mode
  /// the blocks apply their dropout with masks derived from `seed` (thread-count invariant).
  /// Every op runs in parallel over fixed blocks, so the result has the same bits for any
  /// thread count.
  Var forward(const ContactModelInput& input, uint64_t seed = 0) const;

  /// forward with the MSA features given as `msa` [S, W, kMsaFeatures] and the pair features
  /// as `pair` [W, W, F] in place of input.msa and input.pair (the target and positions of
  /// `input` as forward reads them), so that a caller can differentiate the logits with
  /// respect to both (integrated gradients, contact_attribution.hpp). `pair` feeds both the
  /// pair embedding and the skip path.
  Var forward_from_features(const Var& msa, const Var& pair, const ContactModelInput& input, uint64_t seed = 0) const;

  /// The MSA row attention of every block at the block's input, averaged over the input's S
  /// rows (in double, in row order): [blocks, n_heads_msa, W, W], each query residue's row
  /// summing to 1. The maps a tied-row-attention reading of the model gives (Rao et al. 2021,
  /// MSA Transformer, whose row attention is one map per head for the whole MSA). Evaluation
  /// mode (no dropout); no gradient. Thread-count invariant as forward.
  Tensor msa_row_attention_maps(const ContactModelInput& input) const;

  /// The triangle attentions of every block (AF2 Alg. 13 and 14), each head's [W, W, W]
  /// probabilities reduced to one [W, W] map by the mean over the residue its pairs share
  /// (starting node: map(q, k) = mean over s of how much pair (s, q) attends to (s, k); ending
  /// node: of how much (q, s) attends to (k, s)), in double, in residue order:
  /// [blocks, 2 (starting, ending), n_heads_pair, W, W], each query's row summing to 1.
  /// Evaluation mode; no gradient. Holds one block's two [W, H, W, W] probabilities at a time.
  Tensor triangle_attention_maps(const ContactModelInput& input) const;

  /// Register "contact_model" into `registry`.
  static void register_into(Registry& registry);

 private:
  /// AF2 Alg. 3 and 4: the MSA and pair representations the first block reads.
  EvoformerState embed(const Var& msa, const Var& pair, const ContactModelInput& input) const;

  ContactModelOptions options_;
  const Linear* msa_embed_;
  const Linear* target_msa_;
  const Linear* target_left_;
  const Linear* target_right_;
  const Linear* pair_embed_;
  Var relpos_;  // [2 r + 1, c_z]
  std::vector<const EvoformerBlock*> blocks_;
  const evoformer_detail::LayerNormModule* head_norm_;
  const Linear* head_;
  Var potts_weight_;  // [F]
  Var potts_bias_;    // [1]
};

/// The alignment rows the model reads for a whole family: the query and `msa_depth` - 1 rows
/// drawn with a fixed seed (0) (sample_rows), increasing.
std::vector<int64_t> whole_family_rows(const ContactModel& model, const FamilyFeatures& family);

/// The input the model reads for a whole family: the rows of whole_family_rows, every
/// residue, the pair channels of the model's options.
ContactModelInput whole_family_input(const ContactModel& model, const FamilyFeatures& family);

/// The contact model stored in the checkpoint file `path` (`attend contacts train`), built
/// through `registry`, in evaluation mode. A file that does not hold a contact model, or
/// whose stored config or parameters do not fit it, is an attend::InputError naming it.
std::unique_ptr<ContactModel> load_contact_model(const std::string& path, const Registry& registry);

/// Contact probabilities [L, L] (sigmoid of the logits, diagonal 0) of a whole family
/// (`whole_family_input`) with the model in evaluation mode and gradients off.
Tensor predict_contact_probabilities(const ContactModel& model, const FamilyFeatures& family);

}  // namespace attend::bio
