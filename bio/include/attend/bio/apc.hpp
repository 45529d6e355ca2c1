#pragma once
/// Contact scores from Potts couplings: the Frobenius norm of each pair's coupling block over
/// the 20 amino-acid states (gap rows and columns excluded), then the average product
/// correction (APC, Dunn, Wahl & Gloor, Bioinformatics 2008), the CCMpred / plmDCA / GREMLIN
/// score.

#include "attend/core/tensor.hpp"

namespace attend::bio {

/// s(i, j) = sqrt(sum_{a, b < 20} J_ij(a, b)^2) for couplings [L, L, 21, 21]; [L, L],
/// symmetric when the couplings are, diagonal 0. Parallel over rows i.
Tensor coupling_norms(const Tensor& couplings);

/// APC: s'(i, j) = s(i, j) - m_i m_j / m with m_i the mean of row i and m the mean of all
/// entries, both over off-diagonal entries only (Dunn et al. average over the other
/// positions); [L, L] -> [L, L], diagonal 0, symmetric for symmetric input. Sums in double,
/// in index order. L >= 3.
Tensor average_product_correction(const Tensor& scores);

}  // namespace attend::bio
