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
    // Per block of rows i (its size depends on n only: deterministic): partials of db
    // [S, N * C] and dw [C * C, c_z], added in block order afterwards (the only sums across rows).
    const int64_t block_rows = std::max(kPartialRows, (n + kMaxPartials - 1) / kMaxPartials);
    const int64_t n_blocks = (n + block_rows - 1) / block_rows, db_size = s * n * c, dw_size = cc * cz;
    std::vector<float> db_partial(need_b ? static_cast<std::size_t>(n_blocks * db_size) : 0);
    std::vector<float> dw_partial(need_w ? static_cast<std::size_t>(n_blocks * dw_size) : 0);
    std::vector<float> dbias_partial(need_bias ? static_cast<std::size_t>(n_blocks * cz) : 0);
    parallel_for_blocks(n, block_rows, [&](int64_t lo, int64_t hi) {
      const int64_t block = lo / block_rows;
      float* db_part = need_b ? db_partial.data() + block * db_size : nullptr;  // [S, N * C2]
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
      std::vector<float> d_o(kProductRows * n * cc);     // dO of the rows i: [rows, N, C1 * C2]
      std::vector<float> d_p(kProductRows * c * n * c);  // rows (i, c1) of dP: [rows * C1, N * C2]
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
        // dO [rows * N, C1 * C2] = dy[r0:r0 + rows] w^T (one product: w packed once), then each
        // row's dO_i laid out as dP_i [C1, N * C2]
        gemm_one_block(false, true, rows * n, cc, cz, 1.0f, gy.data() + r0 * n * cz, cz, wp, cz, 0.0f, d_o.data(), cc);
        for (int64_t r = 0; r < rows; ++r) {
          float* __restrict d_p_i = d_p.data() + r * c * n * c;
          const float* __restrict d_o_i = d_o.data() + r * n * cc;
          for (int64_t c1 = 0; c1 < c; ++c1)
            for (int64_t j = 0; j < n; ++j)
              for (int64_t c2 = 0; c2 < c; ++c2) d_p_i[c1 * n * c + j * c + c2] = d_o_i[j * cc + c1 * c + c2];
        }
        // da[:, r0:r0 + rows, :] [S, rows * C1] += 1/S b [S, N * C2] dP^T (one block each: dP
        // packed once here and once for db)
        if (ga)
          gemm_one_block(false, true, s, rows * c, n * c, inv_s, bp, n * c, d_p.data(), n * c, 1.0f, ga + r0 * c,
                         n * c);
        // db [S, N * C2] += 1/S a[:, r0:r0 + rows, :] [S, rows * C1] dP
        if (db_part)
          gemm_one_block(false, false, s, n * c, rows * c, inv_s, ap + r0 * c, n * c, d_p.data(), n * c, 1.0f,
                         db_part, n * c);
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
    if (need_b) add_partials(db_partial, db_size, b.grad_mut().data());
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
