#pragma once
/// The weighted Potts pseudo-likelihood of potts_model.hpp as an autodiff op, so that models
/// which build their couplings from other parameters (factored attention) are fitted by the
/// same objective, with its gradient flowing back through the tape.

#include "attend/bio/potts_model.hpp"
#include "attend/core/autodiff.hpp"

namespace attend::bio {

/// f = PottsObjective::evaluate at fields h = `fields` [L, 20] and couplings J given by the
/// symmetric part of `couplings` W [L, L, 21, 21]: J_ij(a, b) = (W_ij(a, b) + W_ji(b, a)) / 2
/// for i < j (diagonal blocks of W are ignored). For a symmetric W (as
/// PottsObjective::couplings returns) this is exactly the objective at those couplings; the
/// regularisation is the objective's own (lambda_single on h, lambda_pair on each J_ij once).
/// Returns a scalar [1]. The objective is evaluated in the forward, which also stores its
/// gradient; the backward scales it by the incoming gradient (dW_ij = dW_ji^T = dJ_ij / 2).
/// Parallel strategy and determinism: PottsObjective's (bit-identical for any thread count).
/// `objective` must outlive the backward pass and is not re-entrant. When `value` is given it
/// receives f in double (the returned Var holds it rounded to float).
Var potts_pseudo_likelihood(PottsObjective& objective, const Var& fields, const Var& couplings,
                            double* value = nullptr);

}  // namespace attend::bio
