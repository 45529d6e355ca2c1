#pragma once
/// FeatureRows: the rows of a node-feature matrix [N, F] for a list of node ids, so that a
/// mini-batch reads only the rows its computation graph needs. Two sources: the matrix in
/// memory (InMemoryFeatureRows) and a graph file read row by row (Hdf5FeatureRows,
/// hdf5_feature_rows.hpp). Both return the same rows bit for bit.

#include <cstdint>
#include <vector>

#include "attend/core/sparse_matrix.hpp"
#include "attend/core/tensor.hpp"
#include "attend/graph/node_features.hpp"

namespace attend::graph {

class FeatureRows {
 public:
  virtual ~FeatureRows() = default;
  /// N.
  virtual int64_t rows() const = 0;
  /// F.
  virtual int64_t cols() const = 0;
  /// The rows of `ids` (any order, repeats allowed, each in 0..N-1, else attend::Error) as a
  /// dense [n, F] tensor: row i is node ids[i], scaled to sum 1 when the source was opened
  /// with normalisation (normalize_feature_row). Not thread-safe (sources keep caches).
  virtual Tensor gather(const std::vector<int64_t>& ids) = 0;
};

/// Scale row [F] to sum 1 (summed in double in column order, each value divided in double
/// and rounded to float); a row summing to 0 is left alone. The same bits as
/// SparseMatrix::normalize_rows gives the stored values of that row: GAT's preprocessing, the
/// presets' normalize_features.
void normalize_feature_row(float* row, int64_t cols);

/// Rows of a matrix held in memory (sparse, as every dataset reader gives it).
class InMemoryFeatureRows final : public FeatureRows {
 public:
  /// With `normalize`, the rows are normalised once here (SparseMatrix::normalize_rows).
  InMemoryFeatureRows(SparseMatrix features, bool normalize);
  int64_t rows() const override { return features_.rows(); }
  int64_t cols() const override { return features_.cols(); }
  /// Densifies the requested rows; parallel over rows (OpenMP).
  Tensor gather(const std::vector<int64_t>& ids) override;

 private:
  SparseMatrix features_;  ///< [N, F], normalised when asked
};

/// A batch's input features for a mini-batch loop's feature hook: the rows of `ids` as a
/// constant dense NodeFeatures [n, F] (nothing upstream of a file takes a gradient); for a
/// featureless graph (F = 0) the rows of the N x N identity as a sparse [n, N], as
/// sampled_features gives them from identity_features.
NodeFeatures gather_node_features(FeatureRows& rows, const std::vector<int64_t>& ids);

/// As gather_node_features, the rows as a constant sparse NodeFeatures [n, F] of their
/// non-zero values instead (SparseMatrix::from_dense): the input sampled_features gives a
/// batch from the in-memory (sparse) features, so the model's first product adds the same
/// terms in the same order (sparse_matmul) and inference gives the in-memory bits, which a
/// dense product (blocked GEMM) does not.
NodeFeatures gather_sparse_node_features(FeatureRows& rows, const std::vector<int64_t>& ids);

}  // namespace attend::graph
