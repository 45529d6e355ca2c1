#pragma once
/// The inputs of the supervised contact model (contact_model.hpp), made from one family's
/// alignment and its unsupervised coevolution scores:
///
/// - per family, once (`FamilyFeatures`): the alignment codes and sequence weights, the
///   weighted column profile [L, 21], and the potts APC scores standardised over the
///   off-diagonal pairs (mean 0, standard deviation 1), so families of any depth give scores
///   on one scale;
/// - per window and sequence subset (`ContactModelInput`, what the model reads): the one-hot
///   MSA rows with the profile appended [S, W, 42], the one-hot query [W, 21], the pair
///   features [W, W, 1] (the standardised score) or [W, W, 4] (with its neighbour means, see
///   `kNeighbourPairFeatures`) and the residue numbers [W] (relative positions). The query
///   is always the first row.
///
/// Random crops and sequence subsets for training come from a seeded attend::Rng, never from
/// the thread count, so the same seed gives the same inputs.

#include <cstdint>
#include <string>
#include <vector>

#include "attend/bio/alignment_h5.hpp"
#include "attend/core/random.hpp"
#include "attend/core/tensor.hpp"

namespace attend::bio {

/// Channels of `ContactModelInput::msa`: one-hot residue (21) and column profile (21).
inline constexpr int64_t kMsaFeatures = 42;
/// Channels of `ContactModelInput::target`: one-hot query residue.
inline constexpr int64_t kTargetFeatures = 21;
/// Channels of `ContactModelInput::pair`: the standardised coevolution score.
inline constexpr int64_t kPairFeatures = 1;
/// Channels of `ContactModelInput::pair` with neighbour means: the standardised score s and,
/// at (i, j), the means of s over the four edge neighbours (i +- 1, j), (i, j +- 1), over the
/// diagonal pair (i - 1, j - 1), (i + 1, j + 1) and over the anti-diagonal pair
/// (i - 1, j + 1), (i + 1, j - 1) (neighbours outside the family count as 0). Each channel is
/// symmetric, so a linear map of them is a symmetric 3 x 3 filter of the score map: the local
/// 2D pattern of contacts (helix and strand pairings run along the diagonals) that learned
/// contact predictors read from coupling maps.
inline constexpr int64_t kNeighbourPairFeatures = 4;

/// The channels of `ContactModelInput::pair`: kNeighbourPairFeatures or kPairFeatures.
inline int64_t pair_feature_count(bool neighbour_scores) {
  return neighbour_scores ? kNeighbourPairFeatures : kPairFeatures;
}

/// One family's features, computed once and reused for every crop.
struct FamilyFeatures {
  std::string name;
  /// Alignment (query at row 0), codes [N, L].
  Alignment alignment;
  /// Column profile [L, 21]: weighted frequencies of each state (weights of alignment_h5).
  Tensor profile;
  /// Standardised coevolution scores [L, L] (symmetric, diagonal 0).
  Tensor scores;

  int64_t length() const { return alignment.length; }
};

/// What the contact model reads: a window of W residues and S sequences.
struct ContactModelInput {
  Tensor msa;     ///< [S, W, kMsaFeatures]
  Tensor target;  ///< [W, kTargetFeatures]
  Tensor pair;    ///< [W, W, pair_feature_count(neighbour_scores)]
  /// Residue numbers of the window in the family, [W] increasing (relative positions).
  std::vector<int64_t> positions;
};

/// Features of an alignment file's content. `features.scores` must be present (an alignment
/// file written with `attend convert --with-scores`, or scores filled in by the caller);
/// `name` names the family in messages. Throws attend::InputError naming `name` otherwise.
FamilyFeatures make_family_features(const AlignmentFeatures& features, const std::string& name);

/// The features of `path`: an alignment HDF5 file (alignment_h5.hpp) with `/scores` is read
/// as it is; a text alignment (any format of alignment.hpp) is weighted at 80 % identity and
/// fitted with the potts predictor (slow for deep alignments: convert it once with
/// `attend convert --msa FILE --with-scores --to FILE.h5` instead).
FamilyFeatures load_family_features(const std::string& path);

/// The model input for residues [begin, begin + width) and alignment `rows` (rows[0] must be
/// 0, the query); `neighbour_scores` adds the neighbour means of the score (read from the
/// whole family, so a window sees the same values as the whole family). Serial; cost
/// O(S W 42 + W^2).
ContactModelInput make_model_input(const FamilyFeatures& family, int64_t begin, int64_t width,
                                   const std::vector<int64_t>& rows, bool neighbour_scores = false);

/// The query and at most `depth` - 1 other rows drawn uniformly without replacement by `rng`
/// (partial Fisher-Yates), kept in alignment order; every row when the alignment has at most
/// `depth`. depth >= 1.
std::vector<int64_t> sample_rows(int64_t num_sequences, int64_t depth, Rng& rng);

}  // namespace attend::bio
