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
  auto pattern = std::make_shared<Pattern>();
  std::vector<int64_t>& indptr = pattern->indptr;
  std::vector<int64_t>& indices = pattern->indices;
  indptr.assign(static_cast<std::size_t>(rows) + 1, 0);
  indices.reserve(order.size());
  m.values_.reserve(order.size());
  for (std::size_t k : order) {
    if (!indices.empty() && indptr[row[k] + 1] > 0 && indices.back() == col[k]) {
      m.values_.back() += value[k];  // duplicate of the previous (row, col)
      continue;
    }
    indices.push_back(col[k]);
    m.values_.push_back(value[k]);
    ++indptr[row[k] + 1];
  }
  for (int64_t r = 0; r < rows; ++r) indptr[r + 1] += indptr[r];
  m.pattern_ = std::move(pattern);
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

std::shared_ptr<const SparseMatrix::Pattern> SparseMatrix::empty_pattern() {
  static const auto empty = std::make_shared<const Pattern>();
  return empty;
}

SparseMatrix SparseMatrix::block_diagonal(int64_t copies) const {
  ATTEND_CHECK(copies >= 1, "block_diagonal of " << copies << " copies");
  ATTEND_CHECK(!differentiable_values_.defined(), "block_diagonal of a matrix with differentiable values");
  const int64_t stored = nnz();
  SparseMatrix m;
  m.rows_ = copies * rows_;
  m.cols_ = copies * cols_;
  auto pattern = std::make_shared<Pattern>();
  pattern->indptr.resize(static_cast<std::size_t>(m.rows_) + 1);
  pattern->indices.resize(static_cast<std::size_t>(copies * stored));
  m.values_.resize(pattern->indices.size());
  pattern->indptr[0] = 0;
  for (int64_t k = 0; k < copies; ++k) {
    for (int64_t r = 0; r < rows_; ++r) pattern->indptr[k * rows_ + r + 1] = k * stored + indptr()[r + 1];
    for (int64_t p = 0; p < stored; ++p) pattern->indices[k * stored + p] = k * cols_ + indices()[p];
    std::copy(values_.begin(), values_.end(), m.values_.begin() + k * stored);
  }
  m.pattern_ = std::move(pattern);
  std::shared_ptr<const SparseMatrix> transpose;
  std::shared_ptr<const std::vector<int64_t>> positions;
  {
    const std::lock_guard<std::mutex> lock(transpose_cache_->mutex);
    transpose = transpose_cache_->transpose;
    positions = transpose_cache_->positions;
  }
  if (transpose) {  // the transpose's copies, and its positions in copy k's entries
    m.transpose_cache_->transpose = std::make_shared<const SparseMatrix>(transpose->block_diagonal(copies));
    auto copied = std::make_shared<std::vector<int64_t>>(m.values_.size());
    for (int64_t k = 0; k < copies; ++k) {
      for (int64_t p = 0; p < stored; ++p) (*copied)[k * stored + p] = k * stored + (*positions)[p];
    }
    m.transpose_cache_->positions = std::move(copied);
  }
  return m;
}

const SparseMatrix::TransposeCache& SparseMatrix::built_transpose() const {
  TransposeCache& cache = *transpose_cache_;
  const std::lock_guard<std::mutex> lock(cache.mutex);
  if (cache.transpose) return cache;
  auto t = std::make_shared<SparseMatrix>();
  t->rows_ = cols_;
  t->cols_ = rows_;
  t->values_.resize(values_.size());
  if (pattern_source_) {  // the pattern's transpose exists: gather this matrix's values into it
    t->pattern_ = pattern_source_->transpose->pattern_;
    const std::vector<int64_t>& positions = *pattern_source_->positions;
    for (std::size_t pos = 0; pos < positions.size(); ++pos) t->values_[pos] = values_[positions[pos]];
    cache.transpose = std::move(t);
    cache.positions = pattern_source_->positions;
    return cache;
  }
  const std::vector<int64_t>& indptr = pattern_->indptr;
  const std::vector<int64_t>& indices = pattern_->indices;
  auto pattern = std::make_shared<Pattern>();
  pattern->indptr.assign(static_cast<std::size_t>(cols_) + 1, 0);
  for (int64_t c : indices) ++pattern->indptr[c + 1];
  for (int64_t c = 0; c < cols_; ++c) pattern->indptr[c + 1] += pattern->indptr[c];
  pattern->indices.resize(indices.size());
  auto positions = std::make_shared<std::vector<int64_t>>(indices.size());
  std::vector<int64_t> next(pattern->indptr.begin(), pattern->indptr.end() - 1);
  for (int64_t r = 0; r < rows_; ++r) {  // rows ascending, so each column's list is sorted
    for (int64_t k = indptr[r]; k < indptr[r + 1]; ++k) {
      const int64_t pos = next[indices[k]]++;
      pattern->indices[pos] = r;
      t->values_[pos] = values_[k];
      (*positions)[pos] = k;
    }
  }
  t->pattern_ = std::move(pattern);
  cache.transpose = std::move(t);
  cache.positions = std::move(positions);
  return cache;
}

const SparseMatrix& SparseMatrix::transpose() const { return *built_transpose().transpose; }

const std::vector<int64_t>& SparseMatrix::transpose_positions() const { return *built_transpose().positions; }

Tensor SparseMatrix::to_dense() const {
  Tensor out({rows_, cols_});
  for (int64_t r = 0; r < rows_; ++r)
    for (int64_t k = indptr()[r]; k < indptr()[r + 1]; ++k) out[r * cols_ + indices()[k]] = values_[k];
  return out;
}

SparseMatrix SparseMatrix::with_values(std::vector<float> values) const {
  ATTEND_CHECK(values.size() == values_.size(),
               values.size() << " values for a pattern of " << values_.size());
  SparseMatrix m;
  m.rows_ = rows_;
  m.cols_ = cols_;
  m.pattern_ = pattern_;
  m.values_ = std::move(values);
  built_transpose();  // built once here (if not yet), so that every copy's transpose shares its pattern
  m.pattern_source_ = transpose_cache_;
  return m;
}

SparseMatrix SparseMatrix::with_differentiable_values(Var values) const {
  ATTEND_CHECK(!values.defined() || values.value().shape() == (Shape{nnz()}),
               "SparseMatrix::with_differentiable_values: values of shape "
                   << shape_to_string(values.value().shape()) << " for " << nnz() << " stored entries");
  built_transpose();  // built once here, so the copy and this matrix share it
  SparseMatrix m = *this;
  m.differentiable_values_ = std::move(values);
  return m;
}

void SparseMatrix::normalize_rows() {
  for (int64_t r = 0; r < rows_; ++r) {
    double s = 0.0;
    for (int64_t k = indptr()[r]; k < indptr()[r + 1]; ++k) s += values_[k];
    if (s == 0.0) continue;
    for (int64_t k = indptr()[r]; k < indptr()[r + 1]; ++k) values_[k] = static_cast<float>(values_[k] / s);
  }
  transpose_cache_ = std::make_shared<TransposeCache>();  // the values changed: transposed afresh
}

}  // namespace attend
