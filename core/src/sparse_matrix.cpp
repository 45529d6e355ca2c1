#include "attend/core/sparse_matrix.hpp"

#include <algorithm>

#include "attend/core/error.hpp"

namespace attend {

SparseMatrix SparseMatrix::from_triplets(int64_t rows, int64_t cols,
                                         const std::vector<int64_t>& row,
                                         const std::vector<int64_t>& col,
                                         const std::vector<float>& value) {
  ATTEND_CHECK(rows >= 0 && cols >= 0, "negative matrix size " << rows << " x " << cols);
  ATTEND_CHECK(row.size() == col.size() && row.size() == value.size(),
               "triplet arrays differ in length: " << row.size() << ", " << col.size() << ", "
                                                   << value.size());
  for (std::size_t i = 0; i < row.size(); ++i) {
    ATTEND_CHECK(row[i] >= 0 && row[i] < rows && col[i] >= 0 && col[i] < cols,
                 "entry (" << row[i] << ", " << col[i] << ") outside a " << rows << " x " << cols
                           << " matrix");
  }
  // Order entries by (row, column), stable so duplicates sum in input order: a counting sort
  // by row (stable), then a stable sort by column within each row that is not in order yet.
  std::vector<std::size_t> row_start(static_cast<std::size_t>(rows) + 1, 0);
  for (int64_t r : row) ++row_start[r + 1];
  for (int64_t r = 0; r < rows; ++r) row_start[r + 1] += row_start[r];
  std::vector<std::size_t> order(row.size());
  {
    std::vector<std::size_t> next(row_start.begin(), row_start.end() - 1);
    for (std::size_t i = 0; i < row.size(); ++i) order[next[row[i]]++] = i;
  }
  const auto by_column = [&](std::size_t a, std::size_t b) { return col[a] < col[b]; };
  for (int64_t r = 0; r < rows; ++r) {
    const auto first = order.begin() + static_cast<std::ptrdiff_t>(row_start[r]);
    const auto last = order.begin() + static_cast<std::ptrdiff_t>(row_start[r + 1]);
    if (!std::is_sorted(first, last, by_column)) std::stable_sort(first, last, by_column);
  }
  SparseMatrix m;
  m.rows_ = rows;
  m.cols_ = cols;
  m.indptr_.assign(static_cast<std::size_t>(rows) + 1, 0);
  m.indices_.reserve(order.size());
  m.values_.reserve(order.size());
  for (std::size_t k : order) {
    if (!m.indices_.empty() && m.indptr_[row[k] + 1] > 0 && m.indices_.back() == col[k]) {
      m.values_.back() += value[k];  // duplicate of the previous (row, col)
      continue;
    }
    m.indices_.push_back(col[k]);
    m.values_.push_back(value[k]);
    ++m.indptr_[row[k] + 1];
  }
  for (int64_t r = 0; r < rows; ++r) m.indptr_[r + 1] += m.indptr_[r];
  return m;
}

SparseMatrix SparseMatrix::from_dense(const Tensor& dense) {
  ATTEND_CHECK(dense.rank() == 2, "from_dense needs a matrix, got " << shape_to_string(dense.shape()));
  std::vector<int64_t> r, c;
  std::vector<float> v;
  for (int64_t i = 0; i < dense.dim(0); ++i)
    for (int64_t j = 0; j < dense.dim(1); ++j) {
      const float x = dense[i * dense.dim(1) + j];
      if (x != 0.0f) {
        r.push_back(i);
        c.push_back(j);
        v.push_back(x);
      }
    }
  return from_triplets(dense.dim(0), dense.dim(1), r, c, v);
}

SparseMatrix SparseMatrix::block_diagonal(int64_t copies) const {
  ATTEND_CHECK(copies >= 1, "block_diagonal of " << copies << " copies");
  ATTEND_CHECK(!differentiable_values_.defined(), "block_diagonal of a matrix with differentiable values");
  const int64_t stored = nnz();
  SparseMatrix m;
  m.rows_ = copies * rows_;
  m.cols_ = copies * cols_;
  m.indptr_.resize(static_cast<std::size_t>(m.rows_) + 1);
  m.indices_.resize(static_cast<std::size_t>(copies * stored));
  m.values_.resize(m.indices_.size());
  m.indptr_[0] = 0;
  for (int64_t k = 0; k < copies; ++k) {
    for (int64_t r = 0; r < rows_; ++r) m.indptr_[k * rows_ + r + 1] = k * stored + indptr_[r + 1];
    for (int64_t p = 0; p < stored; ++p) m.indices_[k * stored + p] = k * cols_ + indices_[p];
    std::copy(values_.begin(), values_.end(), m.values_.begin() + k * stored);
  }
  if (transpose_) {  // the transpose's copies, and its positions in copy k's entries
    m.transpose_ = std::make_shared<const SparseMatrix>(transpose_->block_diagonal(copies));
    auto positions = std::make_shared<std::vector<int64_t>>(m.indices_.size());
    for (int64_t k = 0; k < copies; ++k) {
      for (int64_t p = 0; p < stored; ++p) (*positions)[k * stored + p] = k * stored + (*transpose_positions_)[p];
    }
    m.transpose_positions_ = std::move(positions);
  }
  return m;
}

const SparseMatrix& SparseMatrix::transpose() const {
  if (!transpose_) {
    auto t = std::make_shared<SparseMatrix>();
    t->rows_ = cols_;
    t->cols_ = rows_;
    t->indptr_.assign(static_cast<std::size_t>(cols_) + 1, 0);
    for (int64_t c : indices_) ++t->indptr_[c + 1];
    for (int64_t c = 0; c < cols_; ++c) t->indptr_[c + 1] += t->indptr_[c];
    t->indices_.resize(indices_.size());
    t->values_.resize(values_.size());
    auto positions = std::make_shared<std::vector<int64_t>>(indices_.size());
    std::vector<int64_t> next(t->indptr_.begin(), t->indptr_.end() - 1);
    for (int64_t r = 0; r < rows_; ++r) {  // rows ascending, so each column's list is sorted
      for (int64_t k = indptr_[r]; k < indptr_[r + 1]; ++k) {
        const int64_t pos = next[indices_[k]]++;
        t->indices_[pos] = r;
        t->values_[pos] = values_[k];
        (*positions)[pos] = k;
      }
    }
    transpose_ = std::move(t);
    transpose_positions_ = std::move(positions);
  }
  return *transpose_;
}

const std::vector<int64_t>& SparseMatrix::transpose_positions() const {
  transpose();
  return *transpose_positions_;
}

Tensor SparseMatrix::to_dense() const {
  Tensor out({rows_, cols_});
  for (int64_t r = 0; r < rows_; ++r)
    for (int64_t k = indptr_[r]; k < indptr_[r + 1]; ++k) out[r * cols_ + indices_[k]] = values_[k];
  return out;
}

SparseMatrix SparseMatrix::with_values(std::vector<float> values) const {
  ATTEND_CHECK(values.size() == values_.size(),
               values.size() << " values for a pattern of " << values_.size());
  SparseMatrix m;
  m.rows_ = rows_;
  m.cols_ = cols_;
  m.indptr_ = indptr_;
  m.indices_ = indices_;
  m.values_ = std::move(values);
  return m;
}

SparseMatrix SparseMatrix::with_differentiable_values(Var values) const {
  ATTEND_CHECK(!values.defined() || values.value().shape() == (Shape{nnz()}),
               "SparseMatrix::with_differentiable_values: values of shape "
                   << shape_to_string(values.value().shape()) << " for " << nnz() << " stored entries");
  transpose();  // built once here, so the copy and this matrix share it
  SparseMatrix m = *this;
  m.differentiable_values_ = std::move(values);
  return m;
}

void SparseMatrix::normalize_rows() {
  for (int64_t r = 0; r < rows_; ++r) {
    double s = 0.0;
    for (int64_t k = indptr_[r]; k < indptr_[r + 1]; ++k) s += values_[k];
    if (s == 0.0) continue;
    for (int64_t k = indptr_[r]; k < indptr_[r + 1]; ++k) values_[k] = static_cast<float>(values_[k] / s);
  }
  transpose_.reset();
  transpose_positions_.reset();
}

}  // namespace attend
