#pragma once
/// The unsupervised `factored` contact predictor: factored attention (Bhattacharya, Thomas,
/// Rao, Dauparas, Koo, Baker, Song, Ovchinnikov, "Single layers of attention suffice to
/// predict protein contacts", 2021/2022), one attention layer fitted to one alignment.
///
/// Model: H heads; head h has position-only query and key embeddings Q_h, K_h [L, d] and a
/// value matrix V_h [S, S] over residue states (S = 21, every state; or S = 20, the amino
/// acids: W's gap row and column are then 0, the gap stays a state of the conditional, as in
/// the reference code where the gap is a pad of a 20-letter vocabulary). Its attention is
///   A_h = softmax_j(Q_h K_h^T / sqrt(d))  over j != i (the diagonal is masked),
/// and the couplings are the low-rank mixture W_ij(a, b) = sum_h A_h[i, j] V_h[a, b]. With
/// fields h_i the conditional is the Potts one,
///   log P(x_i = a | x_-i) = h_i(a) + sum_j J_ij(a, x_j) - log Z_i,
/// with J the symmetric part of W (J_ij(a, b) = (W_ij(a, b) + W_ji(b, a)) / 2, the
/// symmetrised energy of the paper's code). The fit minimises the weighted pseudo-likelihood
/// of pseudo_likelihood.hpp (sequence weights at 80 % identity) plus
/// lambda_single * |h|^2 + lambda_pair * sum_{i<j} |J_ij|^2 (our choice: the same L2 as the
/// potts predictor, on the couplings the model makes, rather than a penalty on Q, K and V;
/// it bounds V through W because every attention row sums to one). Scores: Frobenius norm of
/// J_ij over the 20 amino acids, then APC (apc.hpp).
///
/// Computation: the attention goes through ops::dense_attention with B = 1, the H heads,
/// q = Q, k = K ([1, H, L, d]), the diagonal hidden by an additive -inf bias [1, 1, L, L],
/// and the identity as values ([1, H, L, L]), so the op returns the weights A [1, H, L, L]
/// themselves with their gradient to Q and K. W is one GEMM (A as [L * L, H] times V as
/// [H, S * S]) inside mixture_pseudo_likelihood (pseudo_likelihood.hpp), whose [L, L, 21, 21]
/// buffers are kept across the fit's evaluations. The pseudo-likelihood of the N sequences
/// given W is PottsObjective's evaluation (one pass over the alignment per evaluation,
/// whatever H is), so an evaluation costs about one potts evaluation plus
/// O(H L^3 + H L^2 S^2). The parameters (h, Q, K, V) are fitted by L-BFGS (core/lbfgs.hpp)
/// through the autodiff tape.
///
/// Deterministic: Q and K start from attend::Rng(seed) normals, V at zero, the fields at the
/// potts predictor's start; every kernel is thread-count invariant, so a seed gives the same
/// bits for any number of threads.

#include <cstdint>
#include <functional>
#include <vector>

#include <nlohmann/json.hpp>

#include "attend/bio/alignment.hpp"
#include "attend/bio/potts_predictor.hpp"
#include "attend/core/autodiff.hpp"

namespace attend::bio {

/// Options of `predict_contacts_factored`.
struct FactoredOptions {
  /// Applied first (defaults remove nothing).
  AlignmentFilterOptions filter;
  /// Sequence-weight identity threshold; >= 1 gives uniform weights.
  double identity_threshold = 0.8;
  /// Heads H. The paper uses up to 256 heads and thousands of Adam steps; we take 16 so that
  /// L-BFGS reaches a good fit in a few hundred evaluations (on 1atzA with 21-state values,
  /// long-range P@L/5 after the default iterations: H = 8: 0.67, 16: 0.73, 32: 0.67, the
  /// potts fit: 0.80).
  int64_t n_heads = 16;
  /// Query/key width d per head (the paper's 32 / 64 range).
  int64_t c_hidden = 32;
  /// States S of the value matrices: 20 (the amino acids only; the couplings to and from a
  /// gap are 0, as the reference's 20-letter vocabulary) or 21 (every state, the gap
  /// included). 20 is better on the sums of long-range P@L/5 and P@L/2 over the ten families
  /// with L <= 100 (7.03 / 5.64 against 6.78 / 5.49, docs/results.md), though worse on 1atzA.
  int value_states = 20;
  /// Weight of the squared fields.
  double lambda_single = 0.01;
  /// lambda_pair = lambda_pair_factor * (L - 1) on the symmetric couplings J.
  double lambda_pair_factor = 0.2;
  /// Standard deviation of the initial query and key entries (logits start ~N(0, 1); much
  /// smaller starts stall at the near-uniform attention, much larger ones fit worse).
  double init_std = 1.0;
  /// Seed of the initial Q and K.
  uint64_t seed = 0;
  /// The optimiser: relative decrease below 1e-3 over the last 10 iterations, or 300
  /// iterations (the non-convex fit keeps improving slowly, where potts converges in ~30;
  /// budgets of 100 or 150 iterations lose on both precision sums, docs/results.md).
  LbfgsOptions optimizer{.history = 10, .max_iterations = 300, .epsilon = 1e-3, .past = 10};
  /// Iterations after which the snapshot callback receives the scores the fit would return
  /// if it stopped there (the same bits as a fit with max_iterations set to that iteration).
  std::vector<int> snapshot_iterations;

  /// The options declared once (all but snapshot_iterations, a request to the fit): the keys
  /// of the fit's recorded parameters, the user guide's table.
  static const OptionList<FactoredOptions>& option_list();
};

/// Receives (iteration, scores [L, L] in input numbering) for `snapshot_iterations`.
using FactoredSnapshotCallback = std::function<void(int iteration, const Tensor& scores)>;

/// The per-pair head weights of factored attention: query, key [1, H, L, d] -> [L * L, H],
/// row i * L + j holding A_h[i, j] = softmax_j(Q_h K_h^T / sqrt(d)) over j != i (so the rows
/// i * L + i are 0). Through ops::dense_attention (identity values, -inf diagonal bias), then
/// a permutation; differentiable in Q and K.
Var factored_attention(const Var& query, const Var& key);

/// A factored-attention fit: what the potts predictor reports (scores [L, L] in input
/// numbering, fit statistics), and the fitted attention itself.
struct FactoredResult : PottsResult {
  /// The fitted query and key embeddings [H, L', d] over the fitted columns (`columns`).
  Tensor query, key;
  /// Each head's attention A_h = softmax_j(Q_h K_h^T / sqrt(d)) over j != i, [H, L', L']:
  /// rows sum to 1, the diagonal is 0 (factored_attention's values, heads first).
  Tensor attention;
};

/// Fit factored attention to `alignment` and score every pair.
/// `snapshot` (when set) is called at options.snapshot_iterations the fit reaches.
FactoredResult predict_contacts_factored(const Alignment& alignment, const FactoredOptions& options = {},
                                      const PottsProgressCallback& progress = {},
                                      const FactoredSnapshotCallback& snapshot = {});

/// The options and fit statistics as a flat JSON object (as potts_parameters, plus n_heads,
/// c_hidden, value_states, init_std, seed).
nlohmann::json factored_parameters(const FactoredOptions& options, const PottsResult& result);

}  // namespace attend::bio
