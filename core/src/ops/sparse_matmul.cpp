#include "attend/core/ops/sparse_matmul.hpp"

#include <cmath>
#include <cstdint>

#include "attend/core/error.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/random.hpp"

namespace attend::ops {

namespace {
constexpr int64_t kRowBlock = 64;

// out [rows, C] (+)= m [rows, K] * dense [K, C], with m's stored values `values` [nnz].
// kFixedC > 0 compiles the width in: on the small graphs of one explained node the rows are
// a few entries long and a runtime-width loop spends more on its bounds and remainder than
// on the products; every element gets the same multiply-add either way (the same bits).
template <int64_t kFixedC>
void csr_times_dense_width(const SparseMatrix& m, const float* values, const float* dense, int64_t runtime_c,
                           float* out) {
  const auto& indptr = m.indptr();
  const auto& indices = m.indices();
  const int64_t c = kFixedC > 0 ? kFixedC : runtime_c;
  parallel_for_blocks(m.rows(), kRowBlock, [=, &indptr, &indices](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      float* __restrict row = out + r * c;
      for (int64_t k = indptr[r]; k < indptr[r + 1]; ++k) {
        const float a = values[k];
        const float* __restrict src = dense + indices[k] * c;
        for (int64_t j = 0; j < c; ++j) row[j] += a * src[j];
      }
    }
  });
}

void csr_times_dense(const SparseMatrix& m, const float* values, const float* dense, int64_t c, float* out) {
  switch (c) {  // the widths of the shipped presets' GCN and attention layers
    case 16: csr_times_dense_width<16>(m, values, dense, c, out); break;
    case 20: csr_times_dense_width<20>(m, values, dense, c, out); break;
    case 64: csr_times_dense_width<64>(m, values, dense, c, out); break;
    default: csr_times_dense_width<0>(m, values, dense, c, out); break;
  }
}

/// kept [nnz]: bit b of entry e is set when block b keeps stored entry e of m, i.e. entry
/// k = (positions ? positions[e] : e) of x, counter_uniform(block_seeds[b], k) >= p. The
/// uniform is the top 24 bits of a hash over 2^24, so the test is done on the integer bits
/// (exactly the same decision), in loops the compiler vectorises.
std::vector<uint64_t> block_keep_bits(int64_t nnz, const int64_t* positions, float p,
                                      const std::vector<uint64_t>& block_seeds) {
  const auto threshold = static_cast<uint64_t>(std::ceil(static_cast<double>(p) * 16777216.0));  // p * 2^24
  std::vector<uint64_t> kept(static_cast<std::size_t>(nnz), 0);
  parallel_for_blocks(nnz, kRowBlock * 64, [&](int64_t lo, int64_t hi) {
    for (std::size_t b = 0; b < block_seeds.size(); ++b) {
      const uint64_t key = mix64(block_seeds[b]);  // CounterStream's key
      auto bit = [&](uint64_t k) -> uint64_t { return ((mix64(key ^ k) >> 40) >= threshold ? 1ULL : 0ULL) << b; };
      if (positions) {  // two loops: a select inside would stop vectorisation
        for (int64_t e = lo; e < hi; ++e) kept[e] |= bit(static_cast<uint64_t>(positions[e]));
      } else {
        for (int64_t e = lo; e < hi; ++e) kept[e] |= bit(static_cast<uint64_t>(e));
      }
    }
  });
  return kept;
}

// out [rows, B * C] += per block b: (keep_b o m) [rows, K] * dense[:, bC:(b+1)C], with the
// kept-blocks bits [nnz] in m's entry order (block_keep_bits). Every block is visited, a
// dropped one with coefficient 0 (a select, no branch on the random mask: visiting only the
// set bits mispredicts the loop's end about once per entry and measured 1.7x slower on
// PubMed's features at p = 0.6); adding the exact zero products leaves every sum
// bit-identical to skipping them (the weights are finite). kFixedC > 0 compiles the block
// width in (a head's 8 or 16 channels: one or two vector registers, no loop overhead).
template <int64_t kFixedC>
void csr_times_dense_block_masked(const SparseMatrix& m, const std::vector<uint64_t>& kept, float keep_scale,
                                  const float* dense, int64_t blocks, int64_t runtime_c, float* out) {
  const auto& indptr = m.indptr();
  const auto& indices = m.indices();
  const auto& values = m.values();
  const int64_t c = kFixedC > 0 ? kFixedC : runtime_c;
  const int64_t width = blocks * c;
  const uint64_t* kept_bits = kept.data();
  parallel_for_blocks(m.rows(), kRowBlock, [=, &indptr, &indices, &values](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      float* __restrict row = out + r * width;
      for (int64_t k = indptr[r]; k < indptr[r + 1]; ++k) {
        const float a = values[k] * keep_scale;
        const float* __restrict src = dense + indices[k] * width;
        const uint64_t bits = kept_bits[k];
        for (int64_t b = 0; b < blocks; ++b) {
          const float ab = (bits >> b) & 1U ? a : 0.0f;
          float* __restrict row_b = row + b * c;
          const float* __restrict src_b = src + b * c;
          for (int64_t j = 0; j < c; ++j) row_b[j] += ab * src_b[j];
        }
      }
    }
  });
}

void csr_times_dense_block_masked(const SparseMatrix& m, const std::vector<uint64_t>& kept, float keep_scale,
                                  const float* dense, int64_t blocks, int64_t c, float* out) {
  switch (c) {
    case 8: csr_times_dense_block_masked<8>(m, kept, keep_scale, dense, blocks, c, out); break;
    case 16: csr_times_dense_block_masked<16>(m, kept, keep_scale, dense, blocks, c, out); break;
    default: csr_times_dense_block_masked<0>(m, kept, keep_scale, dense, blocks, c, out); break;
  }
}

// out [rows, C] (+)= m [rows, K] * dense [K, C]
void csr_times_dense(const SparseMatrix& m, const float* dense, int64_t c, float* out) {
  csr_times_dense(m, m.values().data(), dense, c, out);
}

/// a . b [n] in eight interleaved partial sums added as a tree (vectorises; the order depends
/// on n only).
float dot_in_lanes(const float* a, const float* b, int64_t n) {
  float lane[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
  int64_t k = 0;
  for (; k + 8 <= n; k += 8) {
    for (int l = 0; l < 8; ++l) lane[l] += a[k + l] * b[k + l];
  }
  for (int64_t l = 0; l < 8 && k + l < n; ++l) lane[l] += a[k + l] * b[k + l];  // n - k < 8 left
  return ((lane[0] + lane[4]) + (lane[1] + lane[5])) + ((lane[2] + lane[6]) + (lane[3] + lane[7]));
}

/// ga [nnz] += for each stored entry k = (r, j) of m: dy[r] . w[j], written by its row only;
/// kFixedC > 0 compiles the width C in (dot_in_lanes's order depends on C only: the same bits).
template <int64_t kFixedC>
void add_entry_gradients_width(const SparseMatrix& m, const float* dy, const float* w, int64_t runtime_c, float* ga) {
  const auto& indptr = m.indptr();
  const auto& indices = m.indices();
  const int64_t c = kFixedC > 0 ? kFixedC : runtime_c;
  parallel_for_blocks(m.rows(), kRowBlock, [=, &indptr, &indices](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      for (int64_t k = indptr[r]; k < indptr[r + 1]; ++k) ga[k] += dot_in_lanes(dy + r * c, w + indices[k] * c, c);
    }
  });
}

/// sparse_matmul when x carries differentiable values a [nnz]: y = x(a) w, dw = x(a)^T dy
/// (the transpose's structure with a gathered into its entry order), and for each stored
/// entry k = (r, j): da[k] += dy[r] . w[j], written by its row only.
Var sparse_matmul_differentiable(std::shared_ptr<const SparseMatrix> x, const Var& w) {
  const Var& a = x->differentiable_values();
  const int64_t c = w.value().dim(1);
  Tensor out({x->rows(), c});  // [N, C]
  csr_times_dense(*x, a.value().data(), w.value().data(), c, out.data());
  return Var::from_op(std::move(out), {w, a}, [x, w, a, c](const Tensor&, const Tensor& gy) {
    const float* values = a.value().data();  // [nnz]
    if (w.requires_grad()) {
      const std::vector<int64_t>& positions = x->transpose_positions();
      std::vector<float> transposed(positions.size());  // [nnz] in the transpose's entry order
      for (std::size_t q = 0; q < positions.size(); ++q) transposed[q] = values[positions[q]];
      csr_times_dense(x->transpose(), transposed.data(), gy.data(), c, w.grad_mut().data());
    }
    if (a.requires_grad()) {
      switch (c) {  // csr_times_dense's widths, compiled in
        case 16: add_entry_gradients_width<16>(*x, gy.data(), w.value().data(), c, a.grad_mut().data()); break;
        case 20: add_entry_gradients_width<20>(*x, gy.data(), w.value().data(), c, a.grad_mut().data()); break;
        case 64: add_entry_gradients_width<64>(*x, gy.data(), w.value().data(), c, a.grad_mut().data()); break;
        default: add_entry_gradients_width<0>(*x, gy.data(), w.value().data(), c, a.grad_mut().data()); break;
      }
    }
  });
}
}  // namespace

Var sparse_matmul(std::shared_ptr<const SparseMatrix> x, const Var& w) {
  ATTEND_CHECK(x != nullptr, "sparse_matmul of a null matrix");
  const Tensor& wv = w.value();
  ATTEND_CHECK(wv.rank() == 2 && wv.dim(0) == x->cols(),
               "sparse_matmul of a " << x->rows() << " x " << x->cols() << " matrix and "
                                     << shape_to_string(wv.shape()));
  if (x->differentiable_values().defined()) return sparse_matmul_differentiable(std::move(x), w);
  const int64_t c = wv.dim(1);
  Tensor out({x->rows(), c});  // [N, C]
  csr_times_dense(*x, wv.data(), c, out.data());
  return Var::from_op(std::move(out), {w}, [x, w, c](const Tensor&, const Tensor& gy) {
    csr_times_dense(x->transpose(), gy.data(), c, w.grad_mut().data());  // dw [K, C] += x^T dy
  });
}

Var sparse_matmul_block_dropout(std::shared_ptr<const SparseMatrix> x, const Var& w, float p,
                                const std::vector<uint64_t>& block_seeds) {
  ATTEND_CHECK(x != nullptr, "sparse_matmul_block_dropout of a null matrix");
  ATTEND_CHECK(!x->differentiable_values().defined(),
               "sparse_matmul_block_dropout of a matrix with differentiable values");
  ATTEND_CHECK(p >= 0.0f && p < 1.0f, "dropout probability " << p << " outside [0, 1)");
  const Tensor& wv = w.value();
  const int64_t blocks = static_cast<int64_t>(block_seeds.size());
  ATTEND_CHECK(blocks > 0 && blocks <= kMaxDropoutBlocks && wv.rank() == 2 && wv.dim(0) == x->cols() && wv.dim(1) % blocks == 0,
               "sparse_matmul_block_dropout of a " << x->rows() << " x " << x->cols() << " matrix, "
                                                   << shape_to_string(wv.shape()) << " weights and "
                                                   << blocks << " blocks (at most " << kMaxDropoutBlocks << ")");
  const int64_t c = wv.dim(1) / blocks;
  const float keep_scale = 1.0f / (1.0f - p);
  const std::vector<uint64_t> kept = block_keep_bits(x->nnz(), nullptr, p, block_seeds);  // [nnz]
  Tensor out({x->rows(), blocks * c});  // [N, B * C]
  csr_times_dense_block_masked(*x, kept, keep_scale, wv.data(), blocks, c, out.data());
  return Var::from_op(std::move(out), {w}, [x, w, p, block_seeds, keep_scale, blocks, c](const Tensor&, const Tensor& gy) {
    // dw [K, B * C] += per block: (keep_b o x)^T dy[:, block b], the masks redrawn in the
    // transpose's entry order (cheaper than gathering the forward's)
    const SparseMatrix& xt = x->transpose();
    const std::vector<uint64_t> kept_t = block_keep_bits(xt.nnz(), x->transpose_positions().data(), p, block_seeds);
    csr_times_dense_block_masked(xt, kept_t, keep_scale, gy.data(), blocks, c, w.grad_mut().data());
  });
}

std::shared_ptr<const SparseMatrix> sparse_dropout(std::shared_ptr<const SparseMatrix> x, float p,
                                                   uint64_t seed) {
  ATTEND_CHECK(p >= 0.0f && p < 1.0f, "dropout probability " << p << " outside [0, 1)");
  if (p == 0.0f) return x;
  const float keep_scale = 1.0f / (1.0f - p);
  std::vector<float> values = x->values();
  const CounterStream stream(seed);
  for (std::size_t k = 0; k < values.size(); ++k) {
    values[k] = stream.at(k) >= p ? values[k] * keep_scale : 0.0f;
  }
  return std::make_shared<const SparseMatrix>(x->with_values(std::move(values)));
}

}  // namespace attend::ops
