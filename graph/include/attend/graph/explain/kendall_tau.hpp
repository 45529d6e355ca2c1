#pragma once
/// Kendall's tau-b between two rankings of the same items (Kendall 1945), the rank
/// correlation of two explanation methods' edge scores (Jain & Wallace 2019 compare attention
/// and gradients this way):
///   tau_b = (concordant - discordant) / sqrt((n0 - ties_x) (n0 - ties_y)),
/// n0 = n (n - 1) / 2, ties_x = pairs tied in x, ties_y = pairs tied in y (pairs tied in both
/// count in both). Pairs are counted directly, O(n^2).

#include <vector>

namespace attend::graph {

/// NaN when fewer than two items or when either ranking is all ties.
double kendall_tau_b(const std::vector<float>& x, const std::vector<float>& y);

}  // namespace attend::graph
