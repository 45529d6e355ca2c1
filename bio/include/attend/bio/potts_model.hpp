#pragma once
/// The pseudo-log-likelihood objective of a Potts model fitted to a weighted alignment
/// (plmDCA: Ekeberg et al. 2013; GREMLIN: Kamisetty et al. 2013; CCMpred: Seemayer et al.
/// 2014), in CCMpred's exact parameterisation and regularisation:
///
///   f(h, J) = - sum_n w_n sum_i log P(x_ni | x_n,-i)
///             + lambda_single * sum_i sum_{a<20} h_i(a)^2
///             + lambda_pair   * sum_{i<j} sum_{a,b<21} J_ij(a, b)^2
///
///   P(x_i = a | x_-i) = exp(h_i(a) + sum_{j != i} J_ij(a, x_j)) / Z_i
///
/// over the 21 states (20 amino acids and the gap). As in CCMpred the gap is the reference
/// state of the fields (h_i(gap) = 0, not a parameter) while couplings cover all 21 x 21
/// states; J is symmetric (J_ji(b, a) = J_ij(a, b)) and each pair i < j is ONE set of
/// parameters. CCMpred stores both copies J_ij and J_ji, adds 0.5 * lambda_pair * x^2 over
/// all stored values and symmetrises the gradient (g_ij + g_ji^T); that is exactly the
/// gradient of the objective above, where each pair is penalised once with lambda_pair.
/// CCMpred's default is lambda_pair = 0.2 * (L - 1), lambda_single = 0.01.
///
/// Parameter vector (float32): fields first, h_i(a) at i * 20 + a; then one 21 x 21 block per
/// pair i < j in row-major pair order, J_ij(a, b) at L * 20 + pair(i, j) * 441 + a * 21 + b,
/// a being the state of i and b the state of j.
///
/// Evaluation: the couplings are expanded into a padded [L, L, 21, 24] array (both copies,
/// zero diagonal blocks) so that the conditional at position i reads one contiguous row of 24
/// floats per neighbour j. The work is parallel over positions i: position i owns its
/// conditional, its rows of the expanded gradient and its field gradient, and loops over all
/// sequences (in blocks of 32 sequences x 8 neighbours so the blocks in use stay in L1; the
/// inner loops are AVX vectors over the 24 padded states); the symmetric pair gradient is assembled afterwards (g_ij + g_ji^T), parallel
/// over pair rows. Objective terms are accumulated in double per position and added in
/// position order, so the objective and gradient are bit-identical for any thread count.

#include <cstdint>
#include <vector>

#include "attend/bio/alignment.hpp"
#include "attend/core/tensor.hpp"

namespace attend::bio {

/// Regularisation strengths of the Potts objective.
struct PottsRegularization {
  /// Weight of the squared fields (CCMpred: 0.01).
  double lambda_single = 0.01;
  /// Weight of the squared couplings, each pair counted once (CCMpred: 0.2 * (L - 1)).
  double lambda_pair = 0.0;
};

/// The CCMpred lambda_pair for an alignment of L columns: factor * (L - 1).
double ccmpred_lambda_pair(int64_t length, double factor = 0.2);

/// The objective f and its gradient over the parameter vector described above.
/// Not thread-safe (evaluations reuse internal buffers of 2 * L * L * 504 floats).
class PottsObjective {
 public:
  /// Fields per position (the amino acids; the gap is the reference state).
  static constexpr int kFieldStates = 20;
  /// Coupling block size per pair (21 x 21).
  static constexpr int kPairBlock = 21 * 21;

  /// Objective over `alignment` (codes [N, L]) with one weight per sequence ([N]).
  PottsObjective(const Alignment& alignment, std::vector<float> weights,
                 const PottsRegularization& regularization);

  int64_t length() const { return length_; }
  int64_t num_sequences() const { return num_sequences_; }
  /// L * 20 + L * (L - 1) / 2 * 441.
  int64_t num_parameters() const;
  /// Index of h_i(a), a < 20.
  int64_t field_index(int64_t i, int a) const { return i * kFieldStates + a; }
  /// Index of J_ij(a, b) for i < j.
  int64_t coupling_index(int64_t i, int64_t j, int a, int b) const;

  /// CCMpred's starting point: h_i(a) = log f_i(a) - log f_i(gap) from the weighted
  /// single-site frequencies with a pseudocount of 1 per state, couplings 0.
  std::vector<float> initial_parameters() const;

  /// f(x); writes the gradient (num_parameters() floats) to `grad`.
  double evaluate(const float* x, float* grad);

  /// The fields as [L, 21] (gap column 0).
  Tensor fields(const float* x) const;
  /// The couplings as a symmetric [L, L, 21, 21] tensor: [i, j, a, b] = J_ij(a, b) for the
  /// state a at i and b at j; diagonal blocks 0.
  Tensor couplings(const float* x) const;

 private:
  void expand(const float* x);
  double position_term(int64_t i);

  int64_t length_ = 0;
  int64_t num_sequences_ = 0;
  std::vector<uint8_t> codes_;       // [N, L]
  std::vector<float> weights_;       // [N]
  PottsRegularization regularization_;
  std::vector<float> expanded_;      // [L, L, 21, kPad] couplings, both copies
  std::vector<float> expanded_grad_; // [L, L, 21, kPad] per-position gradient rows
  std::vector<float> fields_;        // [L, kPad], gap and padding 0
  std::vector<double> field_grad_;   // [L, kPad]
  std::vector<double> position_f_;   // [L]
};

}  // namespace attend::bio
