#include "attend/graph/node_features.hpp"

#include <numeric>

#include "attend/core/error.hpp"
#include "attend/core/ops/dropout.hpp"
#include "attend/core/ops/matmul.hpp"
#include "attend/core/ops/sparse_matmul.hpp"

namespace attend::graph {

int64_t NodeFeatures::rows() const { return sparse ? sparse->rows() : dense.dim(0); }
int64_t NodeFeatures::cols() const { return sparse ? sparse->cols() : dense.dim(-1); }

Var project(const NodeFeatures& x, const Var& weight) {
  return x.is_sparse() ? ops::sparse_matmul(x.sparse, weight) : ops::matmul(x.dense, weight);
}

NodeFeatures dropout(const NodeFeatures& x, float p, uint64_t seed, bool training) {
  if (!training || p == 0.0f) return x;
  if (x.is_sparse()) return NodeFeatures(ops::sparse_dropout(x.sparse, p, seed));
  return NodeFeatures(ops::dropout(x.dense, p, seed, training));
}

std::shared_ptr<const SparseMatrix> identity_features(int64_t n) {
  std::vector<int64_t> ids(static_cast<std::size_t>(n));
  std::iota(ids.begin(), ids.end(), int64_t{0});
  return std::make_shared<const SparseMatrix>(
      SparseMatrix::from_triplets(n, n, ids, ids, std::vector<float>(ids.size(), 1.0f)));
}

}  // namespace attend::graph
