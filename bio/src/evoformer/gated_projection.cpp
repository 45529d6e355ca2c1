#include "attend/bio/evoformer/gated_projection.hpp"

#include <vector>

#include "attend/core/error.hpp"
#include "attend/core/fast_sigmoid.hpp"
#include "attend/core/gemm.hpp"
#include "attend/core/parallel.hpp"

namespace attend::bio {

namespace {

constexpr int64_t kRowBlock = 1024;  // (i, j) rows per work item (fixed: deterministic)

// [K, 2c] = [w_gate | w_value]: one product per block computes both projections.
std::vector<float> joined_weights(const Tensor& w_gate, const Tensor& w_value) {
  const int64_t k = w_gate.dim(0), c = w_gate.dim(1);
  std::vector<float> w(static_cast<std::size_t>(k * 2 * c));
  for (int64_t r = 0; r < k; ++r)
    for (int64_t t = 0; t < c; ++t) {
      w[r * 2 * c + t] = w_gate.data()[r * c + t];
      w[r * 2 * c + c + t] = w_value.data()[r * c + t];
    }
  return w;
}

constexpr int64_t kLanes = 16;       // partial sums per bias gradient (vector lanes; fixed: deterministic)

// pt [2c, rows] = w^T [2c, K] x[lo:lo + rows]^T [K, rows], without the biases: the projections
// channel-first, so that the gate and its gradient run along contiguous rows of pt and of the
// channel-first output.
void project_transposed(const float* x, const float* w, int64_t lo, int64_t rows, int64_t k, int64_t c,
                        float* pt) {
  gemm_one_block(true, true, 2 * c, rows, k, 1.0f, w, 2 * c, x + lo * k, k, 0.0f, pt, rows);
}

// sum of v[0:n] in kLanes interleaved partial sums, then the lanes in order.
float lane_sum(const float* __restrict v, int64_t n) {
  float lanes[kLanes] = {};
  int64_t r = 0;
  for (; r + kLanes <= n; r += kLanes)
    for (int64_t l = 0; l < kLanes; ++l) lanes[l] += v[r + l];
  for (; r < n; ++r) lanes[r % kLanes] += v[r];
  float sum = 0.0f;
  for (float lane : lanes) sum += lane;
  return sum;
}

}  // namespace

Var gated_projection(const Var& x, const Var& w_gate, const Var& b_gate, const Var& w_value, const Var& b_value) {
  const Tensor& xv = x.value();
  const Tensor& wg = w_gate.value();
  ATTEND_CHECK(xv.rank() == 3 && wg.rank() == 2 && wg.dim(0) == xv.dim(2) && w_value.value().shape() == wg.shape() &&
                   b_gate.value().shape() == Shape{wg.dim(1)} && b_value.value().shape() == Shape{wg.dim(1)},
               "gated_projection expects x [n_0, n_1, K], weights [K, c] and biases [c], got "
                   << shape_to_string(xv.shape()) << ", " << shape_to_string(wg.shape()) << ", "
                   << shape_to_string(b_gate.shape()) << ", " << shape_to_string(w_value.shape()) << ", "
                   << shape_to_string(b_value.shape()));
  const int64_t n0 = xv.dim(0), n1 = xv.dim(1), k = xv.dim(2), c = wg.dim(1), rows = n0 * n1;
  const std::vector<float> w = joined_weights(wg, w_value.value());  // [K, 2c]
  const float* bg = b_gate.value().data();
  const float* bv = b_value.value().data();
  Tensor out = Tensor::uninitialized({c, n0, n1});  // [c, n_0, n_1], every element written
  float* op = out.data();
  parallel_for_blocks(rows, kRowBlock, [&](int64_t lo, int64_t hi) {
    const int64_t nb = hi - lo;
    std::vector<float> pt(static_cast<std::size_t>(2 * c * nb));  // [2c, nb]: gate logits, then values
    project_transposed(xv.data(), w.data(), lo, nb, k, c, pt.data());
    for (int64_t t = 0; t < c; ++t) {
      const float* __restrict gate = pt.data() + t * nb;
      const float* __restrict value = pt.data() + (c + t) * nb;
      float* __restrict o = op + t * rows + lo;
      for (int64_t r = 0; r < nb; ++r) o[r] = sigmoid_approx(gate[r] + bg[t]) * (value[r] + bv[t]);
    }
  });
  return Var::from_op(std::move(out), {x, w_gate, b_gate, w_value, b_value},
                      [x, w_gate, b_gate, w_value, b_value, rows, k, c](const Tensor&, const Tensor& gy) {
    const float* xp = x.value().data();
    const float* gp = gy.data();  // [c, n_0, n_1]
    const std::vector<float> w = joined_weights(w_gate.value(), w_value.value());  // [K, 2c]
    const float* bg = b_gate.value().data();
    const float* bv = b_value.value().data();
    const bool weights = w_gate.requires_grad() || w_value.requires_grad() || b_gate.requires_grad() ||
                         b_value.requires_grad();
    const int64_t n_blocks = (rows + kRowBlock - 1) / kRowBlock, part_size = k * 2 * c + 2 * c;
    std::vector<float> partial(weights ? static_cast<std::size_t>(n_blocks * part_size) : 0);  // per block: dw, db
    float* dx = x.requires_grad() ? x.grad_mut().data() : nullptr;
    parallel_for_blocks(rows, kRowBlock, [&](int64_t lo, int64_t hi) {
      const int64_t nb = hi - lo;
      std::vector<float> pt(static_cast<std::size_t>(2 * c * nb));  // [2c, nb]: projections, then their gradient
      project_transposed(xp, w.data(), lo, nb, k, c, pt.data());
      for (int64_t t = 0; t < c; ++t) {
        float* __restrict gate = pt.data() + t * nb;
        float* __restrict value = pt.data() + (c + t) * nb;
        const float* __restrict g = gp + t * rows + lo;
        for (int64_t r = 0; r < nb; ++r) {
          const float s = sigmoid_approx(gate[r] + bg[t]), v = value[r] + bv[t];
          gate[r] = g[r] * v * s * (1.0f - s);  // d gate logit
          value[r] = g[r] * s;                  // d value
        }
      }
      // dx[lo:hi] [nb, K] += pt^T [nb, 2c] w^T [2c, K]
      if (dx) gemm_one_block(true, true, nb, k, 2 * c, 1.0f, pt.data(), nb, w.data(), 2 * c, 1.0f, dx + lo * k, k);
      if (weights) {
        float* part = partial.data() + (lo / kRowBlock) * part_size;  // [K, 2c] then [2c]
        // dw [K, 2c] = x[lo:hi]^T [K, nb] pt^T [nb, 2c]
        gemm_one_block(true, true, k, 2 * c, nb, 1.0f, xp + lo * k, k, pt.data(), nb, 0.0f, part, 2 * c);
        float* db = part + k * 2 * c;
        for (int64_t t = 0; t < 2 * c; ++t) db[t] = lane_sum(pt.data() + t * nb, nb);
      }
    });
    if (!weights) return;
    std::vector<float> sum(static_cast<std::size_t>(part_size), 0.0f);  // dw [K, 2c], db [2c]
    for (int64_t blk = 0; blk < n_blocks; ++blk)
      for (int64_t e = 0; e < part_size; ++e) sum[e] += partial[blk * part_size + e];
    auto add_columns = [&](const Var& wvar, const Var& bvar, int64_t offset) {
      if (wvar.requires_grad()) {
        float* dw = wvar.grad_mut().data();
        for (int64_t r = 0; r < k; ++r)
          for (int64_t t = 0; t < c; ++t) dw[r * c + t] += sum[r * 2 * c + offset + t];
      }
      if (bvar.requires_grad()) {
        float* db = bvar.grad_mut().data();
        for (int64_t t = 0; t < c; ++t) db[t] += sum[k * 2 * c + offset + t];
      }
    };
    add_columns(w_gate, b_gate, 0);
    add_columns(w_value, b_value, c);
  });
}

}  // namespace attend::bio
