#pragma once
/// NodeFeatures: the input of a node layer, dense (a Var, the output of another layer) or a
/// constant sparse matrix (bag-of-words inputs; a sparse identity for featureless nodes,
/// which makes the first projection a learned embedding per node).

#include <cstdint>
#include <memory>

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

/// The N x N identity as a sparse matrix: the input of featureless nodes.
std::shared_ptr<const SparseMatrix> identity_features(int64_t n);

}  // namespace attend::graph
