#pragma once
/// Sequence reweighting for alignments (down-weights near-duplicate sequences).
///
/// Convention (CCMpred's): two sequences are neighbours when the number of columns where
/// their codes are equal, over all L columns and counting gap = gap as equal, is strictly
/// greater than ceil(threshold * L); the weight of a sequence is 1 / (1 + its number of
/// neighbours, itself excluded). With the default threshold 0.8 this is the usual "80 %
/// identity" weighting. N_eff is the sum of the weights.
///
/// Parallel strategy: rows are cut into fixed blocks of 32 (edges depend on N only) and each
/// row counts identities against all N rows on its own (twice the work of using symmetry,
/// but no shared writes); the inner loop compares one uint8 column of the transposed
/// alignment with one code and adds into uint16 counters, which compilers vectorise.
/// Results are bit-identical for any thread count.

#include <vector>

#include "attend/bio/alignment.hpp"

namespace attend::bio {

/// Identity threshold of the usual 80 % weighting.
inline constexpr double kDefaultIdentityThreshold = 0.8;

/// One weight per sequence, [N]. Requires L <= 65535.
std::vector<float> sequence_weights(const Alignment& alignment,
                                    double identity_threshold = kDefaultIdentityThreshold);

/// Effective number of sequences: the sum of `weights`, added in row order in double.
double effective_sequences(const std::vector<float>& weights);

}  // namespace attend::bio
