#pragma once
/// Shapley values (Shapley 1953) of a node's prediction, estimated by permutation sampling
/// (Castro, Gomez & Tejada 2009). The players are the explained edges of the computation
/// graph (EdgeSHAPer, Mastropietro et al. 2022; GraphSVX, Duval & Malliaros 2021, in part)
/// or the input feature columns; the value of a coalition S is the explained quantity f
/// (explained_quantity.hpp, the log-probability of the class):
///   edges:     v(S) = f with the soft edge mask 1 on S's edges and 0 on every other explained
///              edge (edges that are not explained keep 1; the mask's semantics as occlusion.hpp's)
///   features:  v(S) = f with the feature columns outside S zero at every node.
/// The Shapley value of player i is its marginal contribution v(S + i) - v(S) averaged over
/// the orders in which the players join, S the players before i:
///   phi_i = sum over S not holding i of |S|! (n - |S| - 1)! / n! (v(S + i) - v(S)).
/// Unlike occlusion, inputs that are necessary only together (two parallel paths of a grid)
/// share the credit instead of both scoring 0.
///
/// Estimator: P permutations; for each, the n + 1 prefix coalitions are valued (v(empty) and
/// v(all) once for all of them, the n - 1 others per permutation) in batches of copies of the
/// computation graph (batched_values.hpp, as occlusion batches), and each player's marginal
/// contributions are summed in double and divided by P. The permutations come in antithetic
/// pairs, a drawn permutation and its reverse (Mitchell et al. 2022, "Sampling permutations
/// for Shapley value estimation"): a player that joins early in one joins late in the other,
/// which lowers the variance for the same P (P counts both).
///
/// Efficiency: for each permutation the marginal contributions telescope to v(all) -
/// v(empty), so the scores sum to v(all) - v(empty) for any P, up to rounding; the results
/// carry that gap as integrated gradients carries its completeness gap. v(all) is f(input)
/// up to float summation order (another pass over the same input).
///
/// The permutations are drawn in order from attend::Rng, so the same seed gives the same
/// scores, and each copy's logits are a row-parallel pass's, so the scores are the same bits
/// on any number of threads.

#include <cstdint>
#include <functional>
#include <vector>

#include "attend/graph/explain/target_forward.hpp"

namespace attend::graph {

/// The values of a batch of coalitions: `coalitions[k]` [n] is 1 for the players of copy k's
/// coalition; returns v of each (a pass of `copies` >= coalitions.size() copies; the copies
/// past them hold anything).
using CoalitionValues = std::function<std::vector<double>(const std::vector<std::vector<char>>& coalitions, int64_t copies)>;

struct ShapleyValues {
  std::vector<double> value;      ///< [n] mean marginal contribution of each player
  double empty_value = 0.0;       ///< v(no player)
  double full_value = 0.0;        ///< v(every player)
};

/// The mean marginal contributions of `players` players over `permutations` (each an order of
/// 0 .. players - 1), the coalitions valued in batches of at most `per_batch` copies. With
/// every one of the n! orders it is the exact Shapley value.
ShapleyValues shapley_over_permutations(int64_t players, const std::vector<std::vector<int64_t>>& permutations,
                                        int64_t per_batch, const CoalitionValues& values);

/// `samples` orders of 0 .. players - 1 (even, >= 2): samples / 2 drawn uniformly (Fisher-Yates
/// from attend::Rng(seed)), each followed by its reverse.
std::vector<std::vector<int64_t>> antithetic_permutations(int64_t players, int64_t samples, uint64_t seed);

/// A method's scores with their efficiency check.
struct ShapleyAttribution {
  std::vector<float> score;       ///< one per explained edge (the scores of its group) or per feature column
  double baseline_value = 0.0;    ///< v(empty): f with every explained edge's mask 0 / every feature 0
  /// sum over players of the scores - (v(all) - v(empty)); a symmetric group counts once
  double efficiency_gap = 0.0;
};

/// Shapley values of the edges `edges` (local plain edge ids of the computation graph of
/// `passes`) for class `cls`, over the given orders of the players: the edges, or with
/// `symmetric` the groups of edge_groups.hpp in the order they first appear in `edges`.
/// `batch_values` bounds copies x (n + E) per pass.
ShapleyAttribution shapley_edges(TargetForwards& passes, int64_t cls, const std::vector<int64_t>& edges, bool symmetric,
                                 const std::vector<std::vector<int64_t>>& permutations,
                                 int64_t batch_values = int64_t{1} << 20);
/// The same over `samples` antithetic permutations drawn from the seed mix64(seed ^ the target's
/// dataset node id).
ShapleyAttribution shapley_edges(TargetForwards& passes, int64_t cls, const std::vector<int64_t>& edges, bool symmetric,
                                 int64_t samples, uint64_t seed, int64_t batch_values = int64_t{1} << 20);

/// Shapley values [F] of the input feature columns for class `cls` over the given orders of
/// 0 .. F - 1. `batch_values` bounds copies x n x F per pass.
ShapleyAttribution shapley_features(TargetForwards& passes, int64_t cls, const std::vector<std::vector<int64_t>>& permutations,
                                    int64_t batch_values = int64_t{1} << 22);
/// The same over `samples` antithetic permutations drawn from the seed mix64(mix64(seed ^ the
/// target's dataset node id)) (a stream apart from the edges').
ShapleyAttribution shapley_features(TargetForwards& passes, int64_t cls, int64_t samples, uint64_t seed,
                                    int64_t batch_values = int64_t{1} << 22);

}  // namespace attend::graph
