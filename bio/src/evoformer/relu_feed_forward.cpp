#include "attend/bio/evoformer/relu_feed_forward.hpp"

#include <algorithm>
#include <tuple>
#include <vector>

#include "attend/core/error.hpp"
#include "attend/core/gemm.hpp"
#include "attend/core/parallel.hpp"

namespace attend::bio {

namespace {

constexpr int64_t kRowBlock = 512;  // rows per work item and per weight-gradient partial (fixed: deterministic)

// h [rows, H] = relu(x[lo:lo + rows] [rows, K] w1 [K, H] + b1)
void hidden_layer(const float* x, const float* w1, const float* b1, int64_t lo, int64_t rows, int64_t k,
                  int64_t hidden, float* h) {
  gemm_one_block(false, false, rows, hidden, k, 1.0f, x + lo * k, k, w1, hidden, 0.0f, h, hidden);
  for (int64_t r = 0; r < rows; ++r) {
    float* __restrict hr = h + r * hidden;
    for (int64_t t = 0; t < hidden; ++t) hr[t] = std::max(hr[t] + b1[t], 0.0f);
  }
}

}  // namespace

Var relu_feed_forward(const Var& x, const Var& w1, const Var& b1, const Var& w2, const Var& b2) {
  const Tensor& xv = x.value();
  const Tensor& w1v = w1.value();
  const Tensor& w2v = w2.value();
  ATTEND_CHECK(xv.rank() >= 1 && w1v.rank() == 2 && w1v.dim(0) == xv.dim(-1) && w2v.rank() == 2 &&
                   w2v.dim(0) == w1v.dim(1) && b1.value().shape() == Shape{w1v.dim(1)} &&
                   b2.value().shape() == Shape{w2v.dim(1)},
               "relu_feed_forward expects x [..., K], w1 [K, H], b1 [H], w2 [H, C] and b2 [C], got "
                   << shape_to_string(xv.shape()) << ", " << shape_to_string(w1v.shape()) << ", "
                   << shape_to_string(b1.shape()) << ", " << shape_to_string(w2v.shape()) << ", "
                   << shape_to_string(b2.shape()));
  const int64_t k = xv.dim(-1), hidden = w1v.dim(1), c = w2v.dim(1), rows = xv.numel() / std::max<int64_t>(k, 1);
  Shape out_shape = xv.shape();
  out_shape.back() = c;
  Tensor out = Tensor::uninitialized(out_shape);  // [..., C], every element written
  const float* b2p = b2.value().data();
  parallel_for_blocks(rows, kRowBlock, [&](int64_t lo, int64_t hi) {
    const int64_t nb = hi - lo;
    std::vector<float> h(static_cast<std::size_t>(nb * hidden));  // [nb, H]
    hidden_layer(xv.data(), w1v.data(), b1.value().data(), lo, nb, k, hidden, h.data());
    float* y = out.data() + lo * c;  // [nb, C] = b2, then += h w2
    for (int64_t r = 0; r < nb; ++r) std::copy_n(b2p, c, y + r * c);
    gemm_one_block(false, false, nb, c, hidden, 1.0f, h.data(), hidden, w2v.data(), c, 1.0f, y, c);
  });
  return Var::from_op(std::move(out), {x, w1, b1, w2, b2},
                      [x, w1, b1, w2, b2, rows, k, hidden, c](const Tensor&, const Tensor& gy) {
    const float* xp = x.value().data();
    const float* w1p = w1.value().data();
    const float* w2p = w2.value().data();
    const float* gp = gy.data();  // [rows, C]
    const bool weights = w1.requires_grad() || b1.requires_grad() || w2.requires_grad() || b2.requires_grad();
    // per block: dw1 [K, H], db1 [H], dw2 [H, C], db2 [C]
    const int64_t n_blocks = (rows + kRowBlock - 1) / kRowBlock;
    const int64_t dw1_size = k * hidden, dw2_size = hidden * c, part_size = dw1_size + hidden + dw2_size + c;
    std::vector<float> partial(weights ? static_cast<std::size_t>(n_blocks * part_size) : 0);
    float* dx = x.requires_grad() ? x.grad_mut().data() : nullptr;
    parallel_for_blocks(rows, kRowBlock, [&](int64_t lo, int64_t hi) {
      const int64_t nb = hi - lo;
      const float* g = gp + lo * c;  // [nb, C]
      std::vector<float> h(static_cast<std::size_t>(nb * hidden)), dh(static_cast<std::size_t>(nb * hidden));
      hidden_layer(xp, w1p, b1.value().data(), lo, nb, k, hidden, h.data());  // [nb, H]
      // dh [nb, H] = dy w2^T, zero where the ReLU was inactive
      gemm_one_block(false, true, nb, hidden, c, 1.0f, g, c, w2p, c, 0.0f, dh.data(), hidden);
      for (int64_t e = 0; e < nb * hidden; ++e) dh[e] = h[e] > 0.0f ? dh[e] : 0.0f;
      if (dx) gemm_one_block(false, true, nb, k, hidden, 1.0f, dh.data(), hidden, w1p, hidden, 1.0f, dx + lo * k, k);
      if (!weights) return;
      float* dw1 = partial.data() + (lo / kRowBlock) * part_size;
      float* db1 = dw1 + dw1_size;
      float* dw2 = db1 + hidden;
      float* db2 = dw2 + dw2_size;
      gemm_one_block(true, false, k, hidden, nb, 1.0f, xp + lo * k, k, dh.data(), hidden, 0.0f, dw1, hidden);  // x^T dh
      gemm_one_block(true, false, hidden, c, nb, 1.0f, h.data(), hidden, g, c, 0.0f, dw2, c);                 // h^T dy
      std::fill_n(db1, hidden, 0.0f);
      std::fill_n(db2, c, 0.0f);
      for (int64_t r = 0; r < nb; ++r) {
        const float* __restrict dhr = dh.data() + r * hidden;
        const float* __restrict gr = g + r * c;
        for (int64_t t = 0; t < hidden; ++t) db1[t] += dhr[t];
        for (int64_t t = 0; t < c; ++t) db2[t] += gr[t];
      }
    });
    if (!weights) return;
    std::vector<float> sum(static_cast<std::size_t>(part_size), 0.0f);  // dw1, db1, dw2, db2
    parallel_for_blocks(part_size, 1 << 12, [&](int64_t lo, int64_t hi) {
      for (int64_t blk = 0; blk < n_blocks; ++blk)
        for (int64_t e = lo; e < hi; ++e) sum[e] += partial[blk * part_size + e];
    });
    const float* s = sum.data();
    for (const auto& [var, offset, size] : {std::tuple{&w1, int64_t{0}, dw1_size}, std::tuple{&b1, dw1_size, hidden},
                                            std::tuple{&w2, dw1_size + hidden, dw2_size},
                                            std::tuple{&b2, dw1_size + hidden + dw2_size, c}}) {
      if (!var->requires_grad()) continue;
      float* d = var->grad_mut().data();
      for (int64_t e = 0; e < size; ++e) d[e] += s[offset + e];
    }
  });
}

}  // namespace attend::bio
