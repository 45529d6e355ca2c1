#include "attend/graph/feature_rows.hpp"

#include <memory>

#include "attend/core/error.hpp"

namespace attend::graph {

void normalize_feature_row(float* row, int64_t cols) {
  double sum = 0.0;
  for (int64_t c = 0; c < cols; ++c) sum += row[c];
  if (sum == 0.0) return;
  for (int64_t c = 0; c < cols; ++c) row[c] = static_cast<float>(row[c] / sum);
}

InMemoryFeatureRows::InMemoryFeatureRows(SparseMatrix features, bool normalize) : features_(std::move(features)) {
  if (normalize) features_.normalize_rows();
}

Tensor InMemoryFeatureRows::gather(const std::vector<int64_t>& ids) {
  const auto n = static_cast<int64_t>(ids.size());
  const int64_t f = cols();
  for (int64_t id : ids) ATTEND_CHECK(id >= 0 && id < rows(), "feature row " << id << " outside 0.." << rows() - 1);
  Tensor out({n, f});  // [n, F], zeros
  const std::vector<int64_t>& indptr = features_.indptr();
  const std::vector<int64_t>& indices = features_.indices();
  const std::vector<float>& values = features_.values();
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    float* row = out.data() + i * f;
    const int64_t id = ids[static_cast<std::size_t>(i)];
    for (int64_t k = indptr[id]; k < indptr[id + 1]; ++k) row[indices[k]] = values[k];
  }
  return out;
}

NodeFeatures gather_node_features(FeatureRows& rows, const std::vector<int64_t>& ids) {
  if (rows.cols() > 0) return NodeFeatures(Var(rows.gather(ids)));
  const auto n = static_cast<int64_t>(ids.size());
  std::vector<int64_t> local(ids.size());
  for (int64_t i = 0; i < n; ++i) {
    ATTEND_CHECK(ids[i] >= 0 && ids[i] < rows.rows(), "node " << ids[i] << " outside 0.." << rows.rows() - 1);
    local[static_cast<std::size_t>(i)] = i;
  }
  return NodeFeatures(std::make_shared<const SparseMatrix>(
      SparseMatrix::from_triplets(n, rows.rows(), local, ids, std::vector<float>(ids.size(), 1.0f))));
}

NodeFeatures gather_sparse_node_features(FeatureRows& rows, const std::vector<int64_t>& ids) {
  if (rows.cols() == 0) return gather_node_features(rows, ids);  // the identity's rows are sparse already
  return NodeFeatures(std::make_shared<const SparseMatrix>(SparseMatrix::from_dense(rows.gather(ids))));
}

}  // namespace attend::graph
