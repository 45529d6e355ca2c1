#pragma once
/// Which attention heads carry contacts: every head's attention map read as a contact map.
/// Following Rao, Meier, Sercu, Ovchinnikov & Rives 2021 ("Transformer protein language
/// models are unsupervised structure learners") and Bhattacharya et al. 2021 ("Single layers
/// of attention suffice to predict protein contacts"), head h's map A_h [L, L] is symmetrised,
/// s_h(i, j) = (A_h[i, j] + A_h[j, i]) / 2 with the diagonal 0, and APC-corrected
/// (apc.hpp); the pairs ranked by s_h are then scored like any prediction
/// (contact_metrics.hpp). The heads come from
/// - factored attention (factored_attention.hpp): the H fitted heads, one map each;
/// - the Evoformer contact model (contact_model.hpp): each block's MSA row attention heads,
///   averaged over the MSA rows the model reads (ContactModel::msa_row_attention_maps), then
///   its triangle attention heads, starting and ending node, each head's [L, L, L] map
///   reduced to [L, L] by the mean over the residue the attending pairs share
///   (ContactModel::triangle_attention_maps).

#include <cstdint>
#include <string>
#include <vector>

#include "attend/bio/contact_features.hpp"
#include "attend/bio/contact_map.hpp"
#include "attend/bio/contact_metrics.hpp"
#include "attend/bio/factored_attention.hpp"
#include "attend/core/tensor.hpp"

namespace attend::bio {

class ContactModel;

/// Every head's attention and its contact scores, in the numbering of the input alignment.
struct HeadContactMaps {
  /// [H'] names: "head 3" (factored); "block 0 head 2" (evoformer MSA row attention),
  /// "block 0 triangle start head 1" and "block 0 triangle end head 1" (its triangle attention).
  std::vector<std::string> names;
  /// [H', L, L] each head's attention (rows of the fitted columns sum to 1; pairs touching a
  /// column the fit dropped are 0).
  Tensor attention;
  /// [H', L, L] symmetrised, APC-corrected maps (head_contact_scores); pairs touching a
  /// dropped column get the head's lowest fitted score.
  Tensor scores;
};

/// [H, L, L] attention -> [H, L, L] contact scores: per head, the symmetric part with diagonal
/// 0, then average_product_correction. L >= 3. Parallel over heads.
Tensor head_contact_scores(const Tensor& attention);

/// The heads of a factored fit of an alignment of `length` columns.
HeadContactMaps factored_head_maps(const FactoredResult& fit, int64_t length);

/// The MSA row attention heads of `model` on `input` (whole_family_input for a whole family),
/// block by block, then the triangle attention heads, block by block, starting node first.
HeadContactMaps evoformer_head_maps(const ContactModel& model, const ContactModelInput& input);

/// Each head's precision against `truth` (evaluate_contacts of its scores), in head order.
std::vector<ContactPrecision> evaluate_heads(const HeadContactMaps& maps, const ContactMap& truth);

/// The index of the head with the highest long-range P@L/5 (ties: the lower index).
std::size_t best_head(const std::vector<ContactPrecision>& precisions);

}  // namespace attend::bio
