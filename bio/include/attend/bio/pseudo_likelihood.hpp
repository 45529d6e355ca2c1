#pragma once
/// The weighted Potts pseudo-likelihood of potts_model.hpp as an autodiff op, for models that
/// build their couplings as a low-rank mixture of value matrices (factored attention), so that
/// they are fitted by the same objective with its gradient flowing back through the tape.

#include <vector>

#include "attend/bio/potts_model.hpp"
#include "attend/core/autodiff.hpp"

namespace attend::bio {

/// Buffers of `mixture_pseudo_likelihood` kept from one evaluation to the next (an L-BFGS fit
/// evaluates hundreds of times: reusing the [L, L, 21, 21]-sized buffers lowers a factored
/// fit's page faults and peak memory, 100 to 90 MB on 1atzA; its CPU time did not measurably
/// change, docs/results.md). Sized on first use; one workspace serves one evaluation at a
/// time (forward then backward) and must outlive the backward pass.
struct PseudoLikelihoodWorkspace {
  /// W [L * L, S * S] in the forward, its gradient dW in the backward.
  std::vector<float> couplings;
  /// The objective's flat parameters (fields, then J for i < j) and their gradient.
  std::vector<float> parameters, gradient;
};

/// The objective's flat parameters (PottsObjective layout) for fields `fields` [L, 20] and the
/// mixture couplings W = `mixing` [L * L, H] x `value` [H, S, S], written to
/// `workspace.parameters`: the fields, then J_ij(a, b) = (W_ij(a, b) + W_ji(b, a)) / 2 for
/// i < j (the gap row and column 0 when S = 20). W itself is left in `workspace.couplings`.
/// One GEMM, then a pass parallel over rows i. `objective.couplings(parameters)` expands J
/// to the symmetric [L, L, 21, 21] tensor that is scored.
void mixture_parameters(const PottsObjective& objective, const Tensor& fields, const Tensor& mixing,
                        const Tensor& value, PseudoLikelihoodWorkspace& workspace);

/// f = PottsObjective::evaluate at fields h = `fields` [L, 20] and couplings given by the
/// mixture W = `mixing` [L * L, H] x `value` [H, S, S] (row i * L + j of `mixing` weighs the
/// heads for the pair (i, j): W_ij = sum_h mixing[i * L + j, h] V_h), S = 21 (every state) or
/// S = 20 (value matrices over the amino acids; W's gap row and column are 0, the gap stays a
/// state of the conditional). J is the symmetric part of W, J_ij(a, b) =
/// (W_ij(a, b) + W_ji(b, a)) / 2 for i < j (the rows i * L + i are ignored); the
/// regularisation is the objective's own (lambda_single on h, lambda_pair on each J_ij once).
/// Returns a scalar [1]. The forward is `mixture_parameters`, then the objective (which also
/// stores its gradient); the backward forms dW_ij = dJ_ij / 2 (dW_ji = dJ_ij^T / 2) in
/// the workspace, then d mixing = dW V^T and dV = mixing^T dW (two GEMMs).
/// Parallel strategy and determinism: PottsObjective's and gemm's (bit-identical for any
/// thread count); the scatter loops split by row i. `objective` and `workspace` must outlive
/// the backward pass and are not re-entrant. When `value_out` is given it receives f in double
/// (the returned Var holds it rounded to float).
Var mixture_pseudo_likelihood(PottsObjective& objective, const Var& fields, const Var& mixing, const Var& value,
                              PseudoLikelihoodWorkspace& workspace, double* value_out = nullptr);

}  // namespace attend::bio
