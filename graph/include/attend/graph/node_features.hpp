#pragma once
/// NodeFeatures: the input of a node layer, dense (a Var, the output of another layer) or a
/// constant sparse matrix (bag-of-words inputs; a sparse identity for featureless nodes,
/// which makes the first projection a learned embedding per node).

#include <cstdint>
#include <memory>
#include <vector>

#include "attend/core/autodiff.hpp"
#include "attend/core/sparse_matrix.hpp"

namespace attend::graph {

struct NodeFeatures {
  Var dense;                                    ///< [N, F] when dense
  std::shared_ptr<const SparseMatrix> sparse;   ///< [N, F] when sparse

  NodeFeatures() = default;
  NodeFeatures(Var x) : dense(std::move(x)) {}  // NOLINT: a Var is a feature matrix
  NodeFeatures(std::shared_ptr<const SparseMatrix> x) : sparse(std::move(x)) {}  // NOLINT

  bool is_sparse() const { return sparse != nullptr; }
  int64_t rows() const;
  int64_t cols() const;
};

/// x W for either kind of input: [N, F] x [F, K] -> [N, K] (sparse_matmul or matmul).
Var project(const NodeFeatures& x, const Var& weight);

/// Inverted dropout on the features (on the stored values when sparse); identity when not
/// training or p == 0.
NodeFeatures dropout(const NodeFeatures& x, float p, uint64_t seed, bool training);

/// A feature matrix with at least this share of non-zero entries is held dense: its products
/// then run as GEMM. Measured on a 100k-node GAT epoch with 128 features (docs/performance.md):
/// the two forms cost the same up to 10 % non-zeros, dense is 17 % faster at 25 % and 40 % when
/// full; bag-of-words inputs (Cora 1.3 %, CiteSeer 0.9 %, PubMed 10 %) stay CSR and keep their bits.
inline constexpr double kDenseFeatureShare = 0.25;

/// `x` [N, F] in the form a model reads it best: dense when at least kDenseFeatureShare of its
/// entries are non-zero, else the CSR matrix itself. Both give the same model up to the
/// order of a product's sums.
NodeFeatures input_features(std::shared_ptr<const SparseMatrix> x);

/// The rows `ids` of `x` in x's form: [ids.size(), F], constant.
NodeFeatures select_rows(const NodeFeatures& x, const std::vector<int64_t>& ids);
/// The rows `ids` of a sparse matrix, in that order: [ids.size(), F].
SparseMatrix select_rows(const SparseMatrix& x, const std::vector<int64_t>& ids);

/// `x` as a dense [N, F] tensor.
Tensor to_dense(const NodeFeatures& x);

/// The N x N identity as a sparse matrix: the input of featureless nodes.
std::shared_ptr<const SparseMatrix> identity_features(int64_t n);

}  // namespace attend::graph
