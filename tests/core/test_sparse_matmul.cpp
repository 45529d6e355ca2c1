#include <catch2/catch.hpp>

#include <latch>
#include <thread>

#include "attend/core/error.hpp"
#include "attend/core/ops/matmul.hpp"
#include "attend/core/ops/shape.hpp"
#include "attend/core/ops/sparse_matmul.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/random.hpp"
#include "grad_check.hpp"

using namespace attend;
using attend::testing::check_gradients;
using attend::testing::random_tensor;

namespace {
Tensor sparse_dense(int64_t rows, int64_t cols, float density, uint64_t seed) {
  Rng rng(seed);
  Tensor t({rows, cols});
  for (float& v : t) v = rng.uniform() < density ? rng.uniform(-1.0f, 1.0f) : 0.0f;
  return t;
}
}  // namespace

TEST_CASE("sparse matrix builds, transposes and sums duplicates", "[core]") {
  SparseMatrix m = SparseMatrix::from_triplets(2, 3, {1, 0, 1, 1}, {2, 1, 0, 2}, {1, 2, 3, 4});
  CHECK(m.nnz() == 3);
  CHECK(m.to_dense().at({1, 2}) == 5.0f);
  CHECK(bitwise_equal(m.transpose().to_dense(), Tensor({3, 2}, {0, 3, 2, 0, 0, 5})));
  m.normalize_rows();
  CHECK(m.to_dense().at({1, 0}) == Approx(3.0 / 8.0));
  CHECK_THROWS_AS(SparseMatrix::from_triplets(2, 2, {2}, {0}, {1.0f}), Error);
}

TEST_CASE("a matrix with other values shares the pattern and transposes as one built afresh", "[core]") {
  const SparseMatrix m = SparseMatrix::from_dense(sparse_dense(40, 30, 0.2f, 31));
  std::vector<float> values = m.values();
  for (std::size_t k = 0; k < values.size(); ++k) values[k] = k % 3 == 0 ? 0.0f : values[k] * 1.5f;
  SparseMatrix copy = m.with_values(values);
  CHECK(copy.indices().data() == m.indices().data());  // the pattern is shared, not copied
  // the same matrix built on its own (the zeros kept stored, as with_values keeps them)
  std::vector<int64_t> rows, cols;
  for (int64_t r = 0; r < m.rows(); ++r) {
    for (int64_t k = m.indptr()[r]; k < m.indptr()[r + 1]; ++k) {
      rows.push_back(r);
      cols.push_back(m.indices()[k]);
    }
  }
  const SparseMatrix fresh = SparseMatrix::from_triplets(40, 30, rows, cols, values);
  const auto same_transpose = [&](const SparseMatrix& a, const SparseMatrix& b) {
    CHECK(a.transpose().indices().data() == m.transpose().indices().data());
    CHECK(a.transpose().indptr() == b.transpose().indptr());
    CHECK(a.transpose().indices() == b.transpose().indices());
    CHECK(a.transpose().values() == b.transpose().values());
    CHECK(a.transpose_positions() == b.transpose_positions());
  };
  same_transpose(copy, fresh);
  copy.normalize_rows();  // new values: the transpose is gathered again
  SparseMatrix normalized = fresh;
  normalized.normalize_rows();
  CHECK(copy.values() == normalized.values());
  same_transpose(copy, normalized);
  CHECK(m.values() != copy.values());  // the original keeps its own values
}

TEST_CASE("threads asking at once for the transpose or for copies with other values share one transpose", "[core]") {
  // 400k stored entries: building the transpose takes long enough for the threads to meet in it.
  const int64_t rows = 2000, cols = 1500, stored = 400000;
  Rng rng(43);
  std::vector<int64_t> row(stored), col(stored);
  std::vector<float> value(stored);
  for (int64_t k = 0; k < stored; ++k) {
    row[k] = static_cast<int64_t>(rng.below(rows));
    col[k] = static_cast<int64_t>(rng.below(cols));
    value[k] = rng.uniform(-1.0f, 1.0f);
  }
  const SparseMatrix reference = SparseMatrix::from_triplets(rows, cols, row, col, value);
  const SparseMatrix& reference_t = reference.transpose();  // built by one thread
  const int threads = 8;
  for (int round = 0; round < 3; ++round) {
    CAPTURE(round);
    const SparseMatrix m = SparseMatrix::from_triplets(rows, cols, row, col, value);  // no transpose yet
    // Even threads ask for m's transpose, odd ones for a copy with doubled values and its own.
    std::vector<const SparseMatrix*> transposes(threads);
    std::vector<const int64_t*> patterns(threads);
    std::vector<std::vector<float>> copy_values(threads);
    std::latch start(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        start.arrive_and_wait();
        if (t % 2 == 0) {
          transposes[t] = &m.transpose();
          patterns[t] = m.transpose_positions().data();
        } else {
          std::vector<float> doubled = m.values();
          for (float& v : doubled) v *= 2.0f;
          const SparseMatrix copy = m.with_values(std::move(doubled));
          transposes[t] = &m.transpose();
          patterns[t] = copy.transpose().indices().data();
          copy_values[t] = copy.transpose().values();
        }
      });
    }
    for (std::thread& worker : pool) worker.join();
    const SparseMatrix& t = m.transpose();
    std::vector<float> doubled_t = t.values();
    for (float& v : doubled_t) v *= 2.0f;
    for (int k = 0; k < threads; ++k) {
      CAPTURE(k);
      CHECK(transposes[k] == &t);
      CHECK(patterns[k] == (k % 2 == 0 ? m.transpose_positions().data() : t.indices().data()));
      if (k % 2 == 1) CHECK(copy_values[k] == doubled_t);
    }
    CHECK(t.indptr() == reference_t.indptr());
    CHECK(t.indices() == reference_t.indices());
    CHECK(t.values() == reference_t.values());
    CHECK(m.transpose_positions() == reference.transpose_positions());
  }
}

TEST_CASE("a block-diagonal sparse matrix equals the one built from the copied triplets", "[core]") {
  const std::vector<int64_t> row{2, 0, 1, 2, 0, 2}, col{1, 3, 0, 1, 0, 2};
  const std::vector<float> value{1.5f, 2.0f, -1.0f, 0.25f, 3.0f, 4.0f};  // (2, 1) twice: summed
  const SparseMatrix m = SparseMatrix::from_triplets(3, 4, row, col, value);
  const int64_t copies = 3;
  std::vector<int64_t> all_row, all_col;
  std::vector<float> all_value;
  for (int64_t k = 0; k < copies; ++k) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      all_row.push_back(k * 3 + row[i]);
      all_col.push_back(k * 4 + col[i]);
      all_value.push_back(value[i]);
    }
  }
  const SparseMatrix reference = SparseMatrix::from_triplets(9, 12, all_row, all_col, all_value);
  for (const bool transposed_first : {false, true}) {
    CAPTURE(transposed_first);
    if (transposed_first) m.transpose();
    const SparseMatrix b = m.block_diagonal(copies);
    CHECK(b.rows() == 9);
    CHECK(b.cols() == 12);
    CHECK(b.indptr() == reference.indptr());
    CHECK(b.indices() == reference.indices());
    CHECK(b.values() == reference.values());
    CHECK(b.transpose().indptr() == reference.transpose().indptr());
    CHECK(b.transpose().indices() == reference.transpose().indices());
    CHECK(b.transpose().values() == reference.transpose().values());
    CHECK(b.transpose_positions() == reference.transpose_positions());
  }
}

TEST_CASE("sparse matmul equals the dense product, with gradient", "[core][grad]") {
  const Tensor dense = sparse_dense(37, 23, 0.2f, 1);
  const auto x = std::make_shared<const SparseMatrix>(SparseMatrix::from_dense(dense));
  // 5 columns take the general loop; 16, 20 and 64 the widths compiled in.
  const int64_t width = GENERATE(5, 16, 20, 64);
  CAPTURE(width);
  const Tensor w = random_tensor({23, width}, 2);
  CHECK(max_abs_diff(ops::sparse_matmul(x, Var(w)).value(), ops::matmul(Var(dense), Var(w)).value()) < 1e-5f);
  auto r = check_gradients([&](const std::vector<Var>& v) { return ops::sparse_matmul(x, v[0]); }, {w});
  INFO(r.report);
  CHECK(r.ok);
}

// Checks that product(x, w) and its weight gradient are bit-identical on 1 and 2 threads,
// for a 1000 x 300 sparse x and w [300, width].
template <class Product>
void check_thread_invariance(int64_t width, Product product) {
  const auto x = std::make_shared<const SparseMatrix>(SparseMatrix::from_dense(sparse_dense(1000, 300, 0.05f, 3)));
  const Tensor w = random_tensor({300, width}, 4), g = random_tensor({1000, width}, 5);
  auto run = [&](int threads) {
    set_num_threads(threads);
    Var vw(w, true);
    Var y = product(x, vw);
    y.backward(g);
    return std::make_pair(y.value(), vw.grad());
  };
  const int before = num_threads();
  auto [y1, g1] = run(1);
  auto [y2, g2] = run(2);
  set_num_threads(before);
  CHECK(bitwise_equal(y1, y2));
  CHECK(bitwise_equal(g1, g2));
}

TEST_CASE("sparse matmul is bit-identical for 1 and 2 threads", "[core]") {
  check_thread_invariance(16, [](auto x, const Var& w) { return ops::sparse_matmul(x, w); });
}

TEST_CASE("sparse dropout equals dense dropout on the non-zeros", "[core]") {
  const Tensor dense = sparse_dense(40, 30, 0.3f, 6);
  const auto x = std::make_shared<const SparseMatrix>(SparseMatrix::from_dense(dense));
  CHECK(ops::sparse_dropout(x, 0.0f, 1) == x);
  const Tensor dropped = ops::sparse_dropout(x, 0.5f, 9)->to_dense();
  int64_t kept = 0;
  for (int64_t k = 0, i = 0; i < dense.numel(); ++i) {
    if (dense[i] == 0.0f) {
      CHECK(dropped[i] == 0.0f);
      continue;
    }
    const bool keep = counter_uniform(9, static_cast<uint64_t>(k++)) >= 0.5f;
    CHECK(dropped[i] == (keep ? dense[i] * 2.0f : 0.0f));
    kept += keep;
  }
  CHECK(kept > 0);
  CHECK(kept < x->nnz());
  CHECK_THROWS_AS(ops::sparse_dropout(x, 1.0f, 1), Error);
}

TEST_CASE("block dropout matmul equals per-block dropout then matmul, bit for bit", "[core][grad]") {
  const auto x = std::make_shared<const SparseMatrix>(SparseMatrix::from_dense(sparse_dense(200, 60, 0.1f, 7)));
  const Tensor w = random_tensor({60, 3 * 4}, 8), g = random_tensor({200, 3 * 4}, 9);
  const std::vector<uint64_t> seeds{11, 12, 13};
  Var fused_w(w, true);
  Var fused = ops::sparse_matmul_block_dropout(x, fused_w, 0.4f, seeds);
  fused.backward(g);
  Var plain_w(w, true);
  std::vector<Var> blocks = ops::split(plain_w, {4, 4, 4});
  std::vector<Var> products;
  for (std::size_t b = 0; b < seeds.size(); ++b) {
    products.push_back(ops::sparse_matmul(ops::sparse_dropout(x, 0.4f, seeds[b]), blocks[b]));
  }
  Var plain = ops::concat(products);
  plain.backward(g);
  CHECK(bitwise_equal(fused.value(), plain.value()));
  CHECK(bitwise_equal(fused_w.grad(), plain_w.grad()));
  // The blocks draw different masks: block 0 and block 1 of the output differ in zero pattern.
  CHECK(max_abs_diff(ops::sparse_matmul_block_dropout(x, Var(w), 0.4f, {11, 11, 11}).value(), fused.value()) > 0.0f);

  auto r = check_gradients(
      [&](const std::vector<Var>& v) { return ops::sparse_matmul_block_dropout(x, v[0], 0.4f, seeds); }, {w});
  INFO(r.report);
  CHECK(r.ok);
  CHECK_THROWS_AS(ops::sparse_matmul_block_dropout(x, Var(random_tensor({60, 10}, 1)), 0.4f, seeds), Error);
  CHECK_THROWS_AS(ops::sparse_matmul_block_dropout(x, Var(w), 1.0f, seeds), Error);
  CHECK_THROWS_AS(ops::sparse_matmul_block_dropout(x, Var(random_tensor({60, 65}, 1)), 0.4f, std::vector<uint64_t>(65, 1)), Error);
}

TEST_CASE("block dropout matmul is bit-identical for 1 and 2 threads", "[core]") {
  check_thread_invariance(8 * 8, [](auto x, const Var& w) {
    return ops::sparse_matmul_block_dropout(x, w, 0.6f, {1, 2, 3, 4, 5, 6, 7, 8});
  });
}

TEST_CASE("sparse matmul with differentiable values equals the dense product, with gradients", "[core][grad]") {
  const Tensor dense = sparse_dense(19, 13, 0.3f, 11);
  const SparseMatrix pattern = SparseMatrix::from_dense(dense);
  const Tensor values = random_tensor({pattern.nnz()}, 12);  // replace the stored values
  const int64_t width = GENERATE(4, 16, 20, 64);  // the general loop, then the widths compiled in
  CAPTURE(width);
  const Tensor w = random_tensor({13, width}, 13);
  Tensor reference_matrix({19, 13});  // the pattern holding `values`, built by hand
  for (int64_t r = 0; r < 19; ++r)
    for (int64_t k = pattern.indptr()[r]; k < pattern.indptr()[r + 1]; ++k)
      reference_matrix[r * 13 + pattern.indices()[k]] = values[k];
  auto product = [&](const Var& a, const Var& x) {
    return ops::sparse_matmul(std::make_shared<const SparseMatrix>(pattern.with_differentiable_values(a)), x);
  };
  CHECK(max_abs_diff(product(Var(values), Var(w)).value(),
                     ops::matmul(Var(reference_matrix), Var(w)).value()) < 1e-5f);
  auto r = check_gradients([&](const std::vector<Var>& v) { return product(v[0], v[1]); }, {values, w});
  INFO(r.report);
  CHECK(r.ok);
  // With its own stored values as differentiable values, the product is the constant one, bit for bit.
  const Tensor own(Shape{pattern.nnz()}, pattern.values());
  const auto constant = std::make_shared<const SparseMatrix>(pattern);
  CHECK(bitwise_equal(product(Var(own), Var(w)).value(), ops::sparse_matmul(constant, Var(w)).value()));
  CHECK_THROWS_AS(pattern.with_differentiable_values(Var(random_tensor({pattern.nnz() + 1}, 14))), Error);
}

TEST_CASE("sparse matmul with differentiable values is bit-identical for 1 and 2 threads", "[core]") {
  const SparseMatrix pattern = SparseMatrix::from_dense(sparse_dense(1000, 300, 0.05f, 3));
  const Tensor values = random_tensor({pattern.nnz()}, 6);
  const Tensor w = random_tensor({300, 16}, 4), g = random_tensor({1000, 16}, 5);
  auto run = [&](int threads) {
    set_num_threads(threads);
    Var va(values, true), vw(w, true);
    Var y = ops::sparse_matmul(std::make_shared<const SparseMatrix>(pattern.with_differentiable_values(va)), vw);
    y.backward(g);
    return std::vector<Tensor>{y.value(), vw.grad(), va.grad()};
  };
  const int before = num_threads();
  const auto one = run(1), two = run(2);
  set_num_threads(before);
  for (std::size_t i = 0; i < one.size(); ++i) {
    INFO("tensor " << i);
    CHECK(bitwise_equal(one[i], two[i]));
  }
}
