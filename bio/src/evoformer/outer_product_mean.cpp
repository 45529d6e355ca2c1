#include "attend/bio/evoformer/outer_product_mean.hpp"

#include <algorithm>
#include <vector>

#include "attend/core/error.hpp"
#include "attend/core/gemm.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/registry.hpp"
#include "evoformer_common.hpp"

namespace attend::bio {

namespace {

constexpr int64_t kPartialRows = 32;  // backward: least rows i per partial sum of db and dw
constexpr int64_t kMaxPartials = 16;  // backward: most partials (each [S, N, C]); more rows per block beyond
constexpr int64_t kProductRows = 8;   // rows i per outer product (m = 8 C) and per product of da and db (k = 8 C)
constexpr int64_t kChunkCols = 16;    // columns j per outer-product chunk: its p and o (8 x 16 x C^2 each) stay in L2
constexpr int64_t kSumBlock = 1 << 14;  // elements per work item of the partials' sum

// dst [rows, cols, C1 * C2] <- src [rows, C1, cols * C2]: dst[r, j, c1 * C + c2] = src[r, c1, j * C + c2]
// (C = C1 = C2). One contiguous run of C floats per (r, c1, j).
void swap_middle_axes(const float* src, int64_t rows, int64_t cols, int64_t c, float* dst) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c1 = 0; c1 < c; ++c1) {
      const float* __restrict from = src + (r * c + c1) * cols * c;
      float* __restrict to = dst + r * cols * c * c + c1 * c;
      for (int64_t j = 0; j < cols; ++j)
        for (int64_t c2 = 0; c2 < c; ++c2) to[j * c * c + c2] = from[j * c + c2];
    }
}

// dst [cols, rows] <- src [rows, cols]: dst[j, i] = src[i, j]
void swap_last_axes(const float* src, int64_t rows, int64_t cols, float* dst) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) dst[j * rows + i] = src[i * cols + j];
}

// dst [cols, rows] += src [rows, cols] transposed: dst[j, i] += src[i, j]
void add_swapped_last_axes(const float* src, int64_t rows, int64_t cols, float* dst) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) dst[j * rows + i] += src[i * cols + j];
}

// A chunk of the mean outer product, rows i0 .. i0 + rows by columns j0 .. j0 + cols:
// o [rows, cols, C * C], o[i, j, c1 * C + c2] = 1/S sum_s a[s,i,c1] b[s,j,c2]. p is scratch
// [rows * C, cols * C]. Several rows per product so that the GEMM packs b's columns once for
// rows * C rows of p, not C; few columns so that p and o stay in the core's L2 between the
// product, the reordering and the product that reads o.
void outer_chunk(const float* a, const float* b, int64_t s, int64_t n, int64_t c, int64_t i0, int64_t rows,
                 int64_t j0, int64_t cols, float* p, float* o) {
  // p [rows * C, cols * C] = a[:, i0:i0 + rows, :]^T [rows * C, S] b[:, j0:j0 + cols, :] [S, cols * C]
  gemm_one_block(true, false, rows * c, cols * c, s, 1.0f / static_cast<float>(s), a + i0 * c, n * c, b + j0 * c,
                 n * c, 0.0f, p, cols * c);
  swap_middle_axes(p, rows, cols, c, o);
}

}  // namespace

Var outer_product_mean_projection(const Var& a, const Var& b, const Var& w, const Var& bias) {
  const Tensor& av = a.value();
  const Tensor& bv = b.value();
  const Tensor& wv = w.value();
  ATTEND_CHECK(av.rank() == 3 && av.shape() == bv.shape() && wv.rank() == 2 &&
                   wv.dim(0) == av.dim(2) * av.dim(2) && bias.value().shape() == Shape{wv.dim(1)},
               "outer_product_mean_projection expects a, b [S, N, C], w [C * C, c_z] and bias [c_z], got "
                   << shape_to_string(av.shape()) << ", " << shape_to_string(bv.shape()) << ", "
                   << shape_to_string(wv.shape()) << ", " << shape_to_string(bias.shape()));
  const int64_t s = av.dim(0), n = av.dim(1), c = av.dim(2), cz = wv.dim(1), cc = c * c;
  Tensor out = Tensor::uninitialized({n, n, cz});  // [N, N, c_z], every element written
  const float* bias_p = bias.value().data();       // [c_z]
  parallel_for_blocks(n, kProductRows, [&](int64_t lo, int64_t hi) {
    const int64_t rows = hi - lo;
    // [rows * C, cols * C], [rows, cols, C * C], [rows, cols, c_z]
    std::vector<float> p(rows * c * kChunkCols * c), o(rows * kChunkCols * cc), y(rows * kChunkCols * cz);
    for (int64_t j0 = 0; j0 < n; j0 += kChunkCols) {
      const int64_t cols = std::min(kChunkCols, n - j0);
      outer_chunk(av.data(), bv.data(), s, n, c, lo, rows, j0, cols, p.data(), o.data());
      // y [rows * cols, c_z] = o [rows * cols, C * C] w, then out[lo + r, j0:j0 + cols] = y[r] + bias
      gemm_one_block(false, false, rows * cols, cz, cc, 1.0f, o.data(), cc, wv.data(), cz, 0.0f, y.data(), cz);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < cols; ++j) {
          const float* __restrict yj = y.data() + (r * cols + j) * cz;
          float* __restrict to = out.data() + ((lo + r) * n + j0 + j) * cz;
          for (int64_t t = 0; t < cz; ++t) to[t] = yj[t] + bias_p[t];
        }
    }
  });
  return Var::from_op(std::move(out), {a, b, w, bias}, [a, b, w, bias, s, n, c, cz, cc](const Tensor&, const Tensor& gy) {
    const bool need_a = a.requires_grad(), need_b = b.requires_grad(), need_w = w.requires_grad();
    const bool need_bias = bias.requires_grad();
    const float* ap = a.value().data();
    const float* bp = b.value().data();
    const float* wp = w.value().data();
    const float inv_s = 1.0f / static_cast<float>(s);
    float* ga = need_a ? a.grad_mut().data() : nullptr;
    // b with its last two axes swapped, bt [S, C2 * N]: bt[s, c2 * N + j] = b[s, j, c2], the
    // order of the columns of dQ below (da's product then needs no reordering of dQ).
    std::vector<float> bt(ga ? static_cast<std::size_t>(s * c * n) : 0);
    if (ga)
      parallel_for_blocks(s, 1, [&](int64_t lo, int64_t hi) {
        for (int64_t t = lo; t < hi; ++t) swap_last_axes(bp + t * n * c, n, c, bt.data() + t * c * n);
      });
    // Per block of rows i (its size depends on n only: deterministic): partials of db, in
    // bt's layout [S, C2 * N], and of dw [C * C, c_z], added in block order afterwards (the
    // only sums across rows).
    const int64_t block_rows = std::max(kPartialRows, (n + kMaxPartials - 1) / kMaxPartials);
    const int64_t n_blocks = (n + block_rows - 1) / block_rows, db_size = s * n * c, dw_size = cc * cz;
    std::vector<float> db_partial(need_b ? static_cast<std::size_t>(n_blocks * db_size) : 0);
    std::vector<float> dw_partial(need_w ? static_cast<std::size_t>(n_blocks * dw_size) : 0);
    std::vector<float> dbias_partial(need_bias ? static_cast<std::size_t>(n_blocks * cz) : 0);
    parallel_for_blocks(n, block_rows, [&](int64_t lo, int64_t hi) {
      const int64_t block = lo / block_rows;
      float* db_part = need_b ? db_partial.data() + block * db_size : nullptr;  // [S, C2 * N]
      float* dw_part = need_w ? dw_partial.data() + block * dw_size : nullptr;  // [C1 * C2, c_z]
      if (db_part) std::fill_n(db_part, db_size, 0.0f);
      if (dw_part) std::fill_n(dw_part, dw_size, 0.0f);
      if (need_bias) {  // dbias [c_z] = sum of dy over the block's rows (i, j), in order
        float* __restrict dbias = dbias_partial.data() + block * cz;
        std::fill_n(dbias, cz, 0.0f);
        for (int64_t e = lo * n; e < hi * n; ++e) {
          const float* __restrict g = gy.data() + e * cz;
          for (int64_t t = 0; t < cz; ++t) dbias[t] += g[t];
        }
      }
      const int64_t chunk_size = need_w ? kProductRows * kChunkCols : 0;  // dw's recomputed outer products only
      // [rows * C, cols * C], [rows, cols, C * C], dy's chunk [rows, cols, c_z]
      std::vector<float> p(chunk_size * cc), o(chunk_size * cc), gy_chunk(chunk_size * cz);
      // dQ of the rows i: [rows, C1, C2 * N], dQ[i, c1, c2 * N + j] = dO[i, j, c1 * C + c2]
      std::vector<float> d_q(kProductRows * cc * n);
      for (int64_t r0 = lo; r0 < hi; r0 += kProductRows) {
        const int64_t rows = std::min(kProductRows, hi - r0);
        if (dw_part)  // dw += O^T dy over rows r0 .. r0 + rows, chunk by chunk of columns, O recomputed
          for (int64_t j0 = 0; j0 < n; j0 += kChunkCols) {
            const int64_t cols = std::min(kChunkCols, n - j0);
            outer_chunk(ap, bp, s, n, c, r0, rows, j0, cols, p.data(), o.data());
            for (int64_t r = 0; r < rows; ++r)
              std::copy_n(gy.data() + ((r0 + r) * n + j0) * cz, cols * cz, gy_chunk.data() + r * cols * cz);
            gemm_one_block(true, false, cc, cz, rows * cols, 1.0f, o.data(), cc, gy_chunk.data(), cz, 1.0f, dw_part,
                           cz);
          }
        if (!ga && !db_part) continue;
        // dQ_i [C1 * C2, N] = w [C1 * C2, c_z] dy_i^T, row by row: dO_i transposed, which is the
        // [C1, C2 * N] operand that da and db need
        for (int64_t r = 0; r < rows; ++r)
          gemm_one_block(false, true, cc, n, cz, 1.0f, wp, cz, gy.data() + (r0 + r) * n * cz, cz, 0.0f,
                         d_q.data() + r * cc * n, n);
        // da[:, r0:r0 + rows, :] [S, rows * C1] += 1/S bt [S, C2 * N] dQ^T (one block each: dQ
        // packed once here and once for db)
        if (ga)
          gemm_one_block(false, true, s, rows * c, c * n, inv_s, bt.data(), c * n, d_q.data(), c * n, 1.0f,
                         ga + r0 * c, n * c);
        // db in bt's layout [S, C2 * N] += 1/S a[:, r0:r0 + rows, :] [S, rows * C1] dQ
        if (db_part)
          gemm_one_block(false, false, s, c * n, rows * c, inv_s, ap + r0 * c, n * c, d_q.data(), c * n, 1.0f,
                         db_part, c * n);
      }
    });
    // grad[e] += partial 0 [e] + partial 1 [e] + ..., in block order for every element
    // (parallel over elements: the order of each element's sum does not depend on threads).
    auto add_partials = [n_blocks](const std::vector<float>& partial, int64_t size, float* grad) {
      parallel_for_blocks(size, kSumBlock, [&](int64_t lo, int64_t hi) {
        for (int64_t block = 0; block < n_blocks; ++block) {
          const float* __restrict part = partial.data() + block * size;
          float* __restrict g = grad;
          for (int64_t e = lo; e < hi; ++e) g[e] += part[e];
        }
      });
    };
    // db's partials are in bt's layout: summed per row s in block order, then swapped back
    // into b's gradient [S, N, C2]
    if (need_b) {
      float* gb = b.grad_mut().data();
      parallel_for_blocks(s, 1, [&](int64_t lo, int64_t hi) {
        std::vector<float> sum(c * n);  // [C2 * N]
        for (int64_t t = lo; t < hi; ++t) {
          std::fill(sum.begin(), sum.end(), 0.0f);
          for (int64_t block = 0; block < n_blocks; ++block) {
            const float* __restrict part = db_partial.data() + block * db_size + t * c * n;
            float* __restrict to = sum.data();
            for (int64_t e = 0; e < c * n; ++e) to[e] += part[e];
          }
          add_swapped_last_axes(sum.data(), c, n, gb + t * n * c);
        }
      });
    }
    if (need_w) add_partials(dw_partial, dw_size, w.grad_mut().data());
    if (need_bias) add_partials(dbias_partial, cz, bias.grad_mut().data());
  });
}

const OptionList<OuterProductMeanOptions>& OuterProductMeanOptions::option_list() {
  using O = OuterProductMeanOptions;
  static const OptionList<O> list =
      OptionList<O>("outer_product_mean")
          .required("c_m", &O::c_m, "MSA channels", OptionRange::positive())
          .required("c_z", &O::c_z, "pair channels", OptionRange::positive())
          .add("c_hidden", &O::c_hidden, "channels of the two projections (the outer product has c_hidden^2)",
               OptionRange::positive())
          .add("seed", &O::seed, "seeds the initialisation");
  return list;
}

OuterProductMean::OuterProductMean(OuterProductMeanOptions options) : options_(options) {
  using evoformer_detail::Init;
  using evoformer_detail::make_linear;
  ATTEND_CHECK(options.c_m > 0 && options.c_z > 0 && options.c_hidden > 0,
               "outer_product_mean: c_m, c_z and c_hidden must be positive");
  Rng rng(options.seed);
  const int64_t c = options.c_hidden;
  layer_norm_ = &add_child("layer_norm", std::make_unique<evoformer_detail::LayerNormModule>(options.c_m));
  linear_a_ = &add_child("linear_a", make_linear(options.c_m, c, true, Init::kDefault, rng));
  linear_b_ = &add_child("linear_b", make_linear(options.c_m, c, true, Init::kDefault, rng));
  linear_out_ = &add_child("linear_out", make_linear(c * c, options.c_z, true, Init::kFinal, rng));
}

Var OuterProductMean::forward(const Var& m) const {
  // AF2 Alg. 10
  ATTEND_CHECK(m.value().rank() == 3 && m.dim(2) == options_.c_m,
               "outer_product_mean expects m [n_seq, n_res, " << options_.c_m << "], got "
                                                             << shape_to_string(m.shape()));
  const auto& ln = static_cast<const evoformer_detail::LayerNormModule&>(*layer_norm_);
  const Var x = ln.forward(m);                                   // [n_seq, n_res, c_m]
  const Var a = linear_a_->forward(x);                           // [n_seq, n_res, c_hidden]
  const Var b = linear_b_->forward(x);                           // [n_seq, n_res, c_hidden]
  return outer_product_mean_projection(a, b, linear_out_->weight(), linear_out_->bias());  // [n_res, n_res, c_z]
}

void OuterProductMean::register_into(Registry& registry) {
  registry.add("outer_product_mean", [](const Json& config) -> std::unique_ptr<Module> {
    return std::make_unique<OuterProductMean>(OuterProductMeanOptions::from_json(config));
  });
  registry.document("outer_product_mean", OuterProductMeanOptions::option_list().docs());
}

}  // namespace attend::bio
