#include "attend/graph/node_features.hpp"

#include <numeric>

#include "attend/core/error.hpp"
#include "attend/core/ops/dropout.hpp"
#include "attend/core/ops/indexing.hpp"
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

NodeFeatures input_features(std::shared_ptr<const SparseMatrix> x) {
  const double entries = static_cast<double>(x->rows()) * static_cast<double>(x->cols());
  if (entries > 0 && static_cast<double>(x->nnz()) >= kDenseFeatureShare * entries) return NodeFeatures(Var(x->to_dense()));
  return NodeFeatures(std::move(x));
}

NodeFeatures select_rows(const NodeFeatures& x, const std::vector<int64_t>& ids) {
  if (!x.is_sparse()) return NodeFeatures(Var(ops::gather_rows(x.dense, ids).value()));
  return NodeFeatures(std::make_shared<const SparseMatrix>(select_rows(*x.sparse, ids)));
}

SparseMatrix select_rows(const SparseMatrix& x, const std::vector<int64_t>& ids) {
  std::vector<int64_t> rows, cols;
  std::vector<float> values;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    ATTEND_CHECK(ids[i] >= 0 && ids[i] < x.rows(), "select_rows: row " << ids[i] << " of " << x.rows());
    for (int64_t p = x.indptr()[ids[i]]; p < x.indptr()[ids[i] + 1]; ++p) {
      rows.push_back(static_cast<int64_t>(i));
      cols.push_back(x.indices()[p]);
      values.push_back(x.values()[p]);
    }
  }
  return SparseMatrix::from_triplets(static_cast<int64_t>(ids.size()), x.cols(), rows, cols, values);
}

Tensor to_dense(const NodeFeatures& x) { return x.is_sparse() ? x.sparse->to_dense() : x.dense.value(); }

std::shared_ptr<const SparseMatrix> identity_features(int64_t n) {
  std::vector<int64_t> ids(static_cast<std::size_t>(n));
  std::iota(ids.begin(), ids.end(), int64_t{0});
  return std::make_shared<const SparseMatrix>(
      SparseMatrix::from_triplets(n, n, ids, ids, std::vector<float>(ids.size(), 1.0f)));
}

}  // namespace attend::graph
