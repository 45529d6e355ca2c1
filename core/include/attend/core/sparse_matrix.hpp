#pragma once
/// SparseMatrix: a constant float32 matrix in compressed sparse row form, with its transpose
/// built on demand. Used for sparse input features (Cora's bag-of-words rows are 1.3 % full)
/// and graph propagation matrices. A matrix may also carry differentiable stored values (a
/// Var [nnz]), which ops::sparse_matmul then uses in place of values() and sends a gradient:
/// how an explanation's soft edge mask reaches the layers that propagate by a matrix.

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "attend/core/autodiff.hpp"
#include "attend/core/tensor.hpp"

namespace attend {

class SparseMatrix {
 public:
  SparseMatrix() = default;
  /// From coordinate triplets (any order; duplicates are summed). Rows and columns are checked.
  static SparseMatrix from_triplets(int64_t rows, int64_t cols, const std::vector<int64_t>& row,
                                    const std::vector<int64_t>& col,
                                    const std::vector<float>& value);
  /// From a dense matrix [rows, cols], keeping the non-zeros.
  static SparseMatrix from_dense(const Tensor& dense);
  /// `copies` copies of this matrix along the diagonal [copies rows, copies cols]: copy k's
  /// stored entries follow copy k - 1's, each with this matrix's value (the transpose, when
  /// built, is carried the same way). No sort: a batch of disjoint copies of a graph's
  /// propagation matrix for the cost of writing it. Constant values only (attend::Error for
  /// differentiable ones).
  SparseMatrix block_diagonal(int64_t copies) const;

  int64_t rows() const { return rows_; }
  int64_t cols() const { return cols_; }
  int64_t nnz() const { return static_cast<int64_t>(pattern_->indices.size()); }
  const std::vector<int64_t>& indptr() const { return pattern_->indptr; }    // [rows + 1]
  const std::vector<int64_t>& indices() const { return pattern_->indices; }  // [nnz], sorted per row
  const std::vector<float>& values() const { return values_; }      // [nnz]

  /// The transpose, built once and cached (shared by copies of this matrix, however many
  /// threads ask at once).
  const SparseMatrix& transpose() const;
  /// For each stored entry of transpose(), in its order, the position of the same entry in
  /// this matrix's values() [nnz] (built and cached with the transpose).
  const std::vector<int64_t>& transpose_positions() const;
  /// Dense copy [rows, cols].
  Tensor to_dense() const;
  /// The same sparsity pattern with other stored values (same count; zeros are kept stored).
  /// The copy shares this matrix's pattern and its transpose's (built here when not yet):
  /// only the values are new, and its own transpose() gathers them into the shared pattern.
  SparseMatrix with_values(std::vector<float> values) const;
  /// A copy (sharing the cached transpose) whose products use `values` [nnz] in entry order,
  /// a float Var that may require a gradient, instead of values(); an undefined Var gives a
  /// plain copy. Throws attend::Error on another shape.
  SparseMatrix with_differentiable_values(Var values) const;
  /// The differentiable stored values [nnz]; undefined for a constant matrix.
  const Var& differentiable_values() const { return differentiable_values_; }
  /// Scale every row to sum to 1 (rows summing to 0 are left alone), as GAT's preprocessing.
  void normalize_rows();

 private:
  /// Where the stored entries are: shared by copies with other values (with_values), so that
  /// a dropout mask's matrix does not copy 8 bytes of index per entry every step.
  struct Pattern {
    std::vector<int64_t> indptr{0};  // [rows + 1]
    std::vector<int64_t> indices;    // [nnz]
  };
  static std::shared_ptr<const Pattern> empty_pattern();
  /// The transpose and, for each of its stored entries in order, the position of the same
  /// entry in values() [nnz]: filled once, under the mutex, by the first thread that asks;
  /// never changed after. Shared by the copies of a matrix (copy construction); a matrix with
  /// new values (with_values, normalize_rows) gets a new one.
  struct TransposeCache {
    std::mutex mutex;
    std::shared_ptr<const SparseMatrix> transpose;
    std::shared_ptr<const std::vector<int64_t>> positions;
  };
  /// The cache, filled if it was not yet.
  const TransposeCache& built_transpose() const;

  int64_t rows_ = 0, cols_ = 0;
  std::shared_ptr<const Pattern> pattern_ = empty_pattern();
  std::vector<float> values_;
  /// With other values than the matrix it was made from (with_values): that matrix's cache,
  /// filled, whose transposed pattern and positions this matrix's transpose shares.
  std::shared_ptr<const TransposeCache> pattern_source_;
  std::shared_ptr<TransposeCache> transpose_cache_ = std::make_shared<TransposeCache>();
  Var differentiable_values_;  ///< [nnz] or undefined
};

}  // namespace attend
