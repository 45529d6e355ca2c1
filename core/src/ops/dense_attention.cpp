#include "attend/core/ops/dense_attention.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>

#include "attend/core/error.hpp"
#include "attend/core/fast_exp.hpp"
#include "attend/core/fast_sigmoid.hpp"
#include "attend/core/parallel.hpp"
#include "tile_exp.hpp"
#include "tile_gemm.hpp"
#include "tile_reduce.hpp"
#include "tile_transpose.hpp"

namespace attend::ops {

namespace {

using attend::detail::kTileVec;
using attend::detail::tile_exp;
using attend::detail::tile_gemm;
using attend::detail::tile_max;
using attend::detail::tile_store;
using attend::detail::tile_sum;
using attend::detail::tile_transpose;
using attend::detail::tile_load;
using attend::detail::TileVec;

constexpr int64_t kQueryTile = 64;   // query rows of one score block
constexpr int64_t kKeyTile = 128;    // keys of one score block (scratch row stride)
constexpr int64_t kDefaultChunk = 256;
constexpr int64_t kTargetItems = 16;     // backward: key segments are added below this
constexpr int64_t kMaxKeySegments = 4;   // backward: bounds the dQ partial buffers
constexpr float kInf = std::numeric_limits<float>::infinity();

// x[j] = exp(x[j] - shift) for j in [0, n), exp_approx's bits a register at a time
// (tile_exp); returns the sum of the new x in row_dot's order. Always inlined: the polynomial's
// constants then stay in registers across the rows of a tile, and a caller that ignores the
// sum (the backward) does not compute it.
[[gnu::always_inline]] inline float exp_shifted(float* __restrict x, int64_t n, float shift) {
  TileVec lanes = TileVec{};
  int64_t j = 0;
  for (; j + kTileVec <= n; j += kTileVec) {
    const TileVec e = tile_exp(tile_load(x + j) - shift);
    tile_store(x + j, e);
    lanes += e;
  }
  float tail = 0.0f;
  for (; j < n; ++j) {
    x[j] = exp_approx(x[j] - shift);
    tail += x[j];
  }
  return tile_sum(lanes) + tail;
}

// Largest element of x[0, n) (-inf when n == 0).
float row_max(const float* x, int64_t n) {
  TileVec lanes = TileVec{} - kInf;
  int64_t j = 0;
  for (; j + kTileVec <= n; j += kTileVec) {
    const TileVec v = tile_load(x + j);
    lanes = lanes < v ? v : lanes;
  }
  float m = tile_max(lanes);
  for (; j < n; ++j) m = m < x[j] ? x[j] : m;
  return m;
}

// Sum of x[j] * y[j] (y == nullptr: of x[j]) in a fixed order that depends on n only:
// kTileVec interleaved partial sums, then the tail, then the partial sums' tree (tile_sum).
float row_dot(const float* x, const float* y, int64_t n) {
  TileVec lanes = TileVec{};
  int64_t j = 0;
  float tail = 0.0f;
  if (y == nullptr) {
    for (; j + kTileVec <= n; j += kTileVec) lanes += tile_load(x + j);
    for (; j < n; ++j) tail += x[j];
  } else {
    for (; j + kTileVec <= n; j += kTileVec) lanes += tile_load(x + j) * tile_load(y + j);
    for (; j < n; ++j) tail += x[j] * y[j];
  }
  return tile_sum(lanes) + tail;
}

// One additive bias seen through broadcasting: element (b, h, i, j) is at
// data[b*sb + h*sh + i*sq + j*sk], with stride 0 on broadcast axes. `grad` (same layout) is
// set when the bias needs a gradient.
struct BiasRef {
  const float* data = nullptr;
  int64_t sb = 0, sh = 0, sq = 0, sk = 0;
  float* grad = nullptr;

  int64_t offset(int64_t b, int64_t h, int64_t i, int64_t j) const {
    return b * sb + h * sh + i * sq + j * sk;
  }
};

// Sizes and raw inputs of one call, shared by the forward and the backward.
struct Problem {
  int64_t B = 0, H = 0, nq = 0, nk = 0, d = 0, dv = 0;
  float scale = 1.0f;
  bool causal = false;
  const float* q = nullptr;     // [B, H, nq, d]
  const float* k = nullptr;     // [B, H, nk, d]
  const float* v = nullptr;     // [B, H, nk, dv]
  std::vector<BiasRef> biases;
  const float* mask = nullptr;  // [B or 1, nk]
  int64_t mask_sb = 0;

  int64_t bh(int64_t b, int64_t h) const { return b * H + h; }
  const float* q_rows(int64_t b, int64_t h, int64_t i) const { return q + (bh(b, h) * nq + i) * d; }
  const float* k_rows(int64_t b, int64_t h, int64_t j) const { return k + (bh(b, h) * nk + j) * d; }
  const float* v_rows(int64_t b, int64_t h, int64_t j) const { return v + (bh(b, h) * nk + j) * dv; }
};

// rows x cols block of a row-major matrix (row stride ld) -> its transpose, row stride kKeyTile:
// whole kTileVec x kTileVec blocks in registers (tile_transpose), the edges element by element.
void transpose_tile(const float* src, int64_t rows, int64_t cols, int64_t ld, float* dst) {
  const int64_t block_rows = rows / kTileVec * kTileVec, block_cols = cols / kTileVec * kTileVec;
  for (int64_t r = 0; r < block_rows; r += kTileVec)
    for (int64_t c = 0; c < block_cols; c += kTileVec)
      tile_transpose(src + r * ld + c, ld, dst + c * kKeyTile + r, kKeyTile);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = r < block_rows ? block_cols : 0; c < cols; ++c) dst[c * kKeyTile + r] = src[r * ld + c];
}

// Logits of queries [q0, q0+rows) against keys [k0, k0+cols) of head (b, h) into s (row
// stride lds): scale * q k^T, plus every bias in order, plus the key mask, plus causal -inf.
// `kt` is the key tile transposed ([d, kKeyTile]). The forward and the backward both call
// this, so recomputed logits are the same bits.
void score_tile(const Problem& p, int64_t b, int64_t h, int64_t q0, int64_t rows, int64_t k0,
                int64_t cols, const float* kt, float* s, int64_t lds) {
  tile_gemm(rows, cols, p.d, p.scale, p.q_rows(b, h, q0), p.d, 1, kt, kKeyTile, s, lds, false);

  float key_add[kKeyTile];  // 0 for kept keys, -inf for masked ones
  if (p.mask != nullptr) {
    const float* mrow = p.mask + b * p.mask_sb + k0;
    for (int64_t j = 0; j < cols; ++j) key_add[j] = mrow[j] != 0.0f ? 0.0f : -kInf;
  }
  for (int64_t i = 0; i < rows; ++i) {
    float* row = s + i * lds;
    for (const BiasRef& bias : p.biases) {
      const float* brow = bias.data + bias.offset(b, h, q0 + i, k0);
      if (bias.sk != 0) {
        for (int64_t j = 0; j < cols; ++j) row[j] += brow[j];
      } else {
        const float c = brow[0];
        for (int64_t j = 0; j < cols; ++j) row[j] += c;
      }
    }
    if (p.mask != nullptr)
      for (int64_t j = 0; j < cols; ++j) row[j] += key_add[j];
    if (p.causal) {
      // Key j is hidden from query i when j > i.
      for (int64_t j = std::max<int64_t>(0, q0 + i + 1 - k0); j < cols; ++j) row[j] = -kInf;
    }
  }
}

// Where the forward writes its rows (null = not wanted).
struct ForwardTargets {
  float* o = nullptr;            // un-gated output [B, H, nq, dv]
  const float* gate = nullptr;   // gate logits [B, H, nq, dv] (null: no gate)
  float* gated = nullptr;        // sigmoid(gate) * o [B, H, nq, dv] (with a gate)
  float* lse = nullptr;          // [B, H, nq]
  float* weights = nullptr;      // [B, H, nq, nk]
};

// Forward of queries [c0, c1) of head (b, h): online softmax over key tiles (running max m and
// sum l per row, accumulator rescaled when the max grows). Writes the un-gated output rows
// and, with a gate, the gated ones (sigmoid(gate) * o, from o's rounded values), their
// log-sum-exp (+inf for a row with every key masked) and, when asked, the weights.
void forward_chunk(const Problem& p, int64_t b, int64_t h, int64_t c0, int64_t c1,
                   const ForwardTargets& t) {
  float* const weights = t.weights;
  const int64_t n_rows = c1 - c0, dv = p.dv;
  std::vector<float> acc(n_rows * dv, 0.0f);  // [n_rows, dv]
  std::vector<float> m(n_rows, -kInf), l(n_rows, 0.0f);
  std::vector<float> s(kQueryTile * kKeyTile);  // [kQueryTile, kKeyTile] scores, then probabilities
  std::vector<float> kt(p.d * kKeyTile);        // [d, kKeyTile] key tile transposed
  for (int64_t k0 = 0; k0 < p.nk; k0 += kKeyTile) {
    if (p.causal && k0 > c1 - 1) break;
    const int64_t cols = std::min(kKeyTile, p.nk - k0);
    transpose_tile(p.k_rows(b, h, k0), cols, p.d, p.d, kt.data());
    for (int64_t q0 = c0; q0 < c1; q0 += kQueryTile) {
      const int64_t rows = std::min(kQueryTile, c1 - q0);
      if (p.causal && k0 > q0 + rows - 1) continue;
      score_tile(p, b, h, q0, rows, k0, cols, kt.data(), s.data(), kKeyTile);
      if (weights != nullptr) {
        for (int64_t i = 0; i < rows; ++i)
          std::copy_n(s.data() + i * kKeyTile, cols, weights + (p.bh(b, h) * p.nq + q0 + i) * p.nk + k0);
      }
      for (int64_t i = 0; i < rows; ++i) {
        float* row = s.data() + i * kKeyTile;
        const int64_t r = q0 - c0 + i;
        const float m_new = std::max(m[r], row_max(row, cols));
        if (m_new == -kInf) {  // every key so far masked: nothing to add
          std::fill(row, row + cols, 0.0f);
          continue;
        }
        const float alpha = exp_approx(m[r] - m_new);
        l[r] = l[r] * alpha + exp_shifted(row, cols, m_new);
        if (alpha != 1.0f)
          for (int64_t c = 0; c < dv; ++c) acc[r * dv + c] *= alpha;
        m[r] = m_new;
      }
      // acc [rows, dv] += P [rows, cols] V [cols, dv]
      tile_gemm(rows, dv, cols, 1.0f, s.data(), kKeyTile, 1, p.v_rows(b, h, k0), dv,
                acc.data() + (q0 - c0) * dv, dv, true);
    }
  }
  for (int64_t r = 0; r < n_rows; ++r) {
    const int64_t i = c0 + r, row = p.bh(b, h) * p.nq + i;
    float* __restrict o_row = acc.data() + r * dv;  // normalised in place
    float& row_lse = t.lse[row];
    if (l[r] > 0.0f) {
      const float inv = 1.0f / l[r];
      for (int64_t c = 0; c < dv; ++c) o_row[c] *= inv;
      row_lse = m[r] + std::log(l[r]);
    } else {
      std::fill(o_row, o_row + dv, 0.0f);
      row_lse = kInf;
    }
    if (t.o != nullptr) std::copy_n(o_row, dv, t.o + row * dv);
    if (t.gate != nullptr) {
      const float* __restrict g = t.gate + row * dv;
      float* __restrict y = t.gated + row * dv;
      for (int64_t c = 0; c < dv; ++c) y[c] = sigmoid_approx(g[c]) * o_row[c];
    }
    if (weights != nullptr) {
      float* w = weights + (p.bh(b, h) * p.nq + i) * p.nk;
      exp_shifted(w, p.nk, row_lse);
    }
  }
}

// Where the backward sends its gradients (null = not needed).
struct GradTargets {
  float* dq = nullptr;        // key segment 0's dQ: [B, H, nq, d], dQ itself or a partial buffer
  float* dq_later = nullptr;  // segments 1, 2, ...: their partial buffers, one after the other
  int64_t dq_segment_stride = 0;  // floats between the dq partials of two key segments
  float* dk = nullptr;        // [B, H, nk, d]
  float* dv = nullptr;        // [B, H, nk, dv]
  const float* d_out = nullptr;   // gradient of the un-gated output [B, H, nq, dv]
  const float* lse = nullptr;     // [B, H, nq]
  const float* delta = nullptr;   // rowsum(dO * O) [B, H, nq]
  bool any_bias_grad = false;
};

// FlashAttention-2 backward for heads [b0, b1) x [h0, h1) and key tiles [u0, u1), which is
// key segment `segment`. Recomputes P = exp(S - lse) per (query tile x key tile) block:
// dV += P^T dO; dP = dO V^T; dS = P * (dP - delta); dK += scale dS^T Q; dQ += scale dS K;
// bias gradients += dS summed over their broadcast axes. Loops run in a fixed order.
void backward_item(const Problem& p, const GradTargets& g, int64_t b0, int64_t b1, int64_t h0,
                   int64_t h1, int64_t u0, int64_t u1, int64_t segment) {
  const int64_t d = p.d, dv = p.dv;
  const bool need_ds = g.dq != nullptr || g.dk != nullptr || g.any_bias_grad;
  std::vector<float> prob(kQueryTile * kKeyTile);  // [kQueryTile, kKeyTile] P
  std::vector<float> dprob(kQueryTile * kKeyTile); // [kQueryTile, kKeyTile] dP, then dS
  std::vector<float> kt(d * kKeyTile);             // [d, kKeyTile] key tile transposed
  std::vector<float> vt(dv * kKeyTile);            // [dv, kKeyTile] value tile transposed
  std::vector<float> dk_acc(kKeyTile * d);         // [kKeyTile, d]
  std::vector<float> dv_acc(kKeyTile * dv);        // [kKeyTile, dv]
  float* dq_base = g.dq == nullptr ? nullptr
                   : segment == 0  ? g.dq
                                   : g.dq_later + (segment - 1) * g.dq_segment_stride;
  for (int64_t b = b0; b < b1; ++b) {
    for (int64_t h = h0; h < h1; ++h) {
      for (int64_t u = u0; u < u1; ++u) {
        const int64_t k0 = u * kKeyTile, cols = std::min(kKeyTile, p.nk - k0);
        std::fill(dk_acc.begin(), dk_acc.end(), 0.0f);
        std::fill(dv_acc.begin(), dv_acc.end(), 0.0f);
        transpose_tile(p.k_rows(b, h, k0), cols, d, d, kt.data());
        transpose_tile(p.v_rows(b, h, k0), cols, dv, dv, vt.data());
        // Under causal masking query tiles that end before k0 see none of these keys.
        const int64_t q_start = p.causal ? (k0 / kQueryTile) * kQueryTile : 0;
        for (int64_t q0 = q_start; q0 < p.nq; q0 += kQueryTile) {
          const int64_t rows = std::min(kQueryTile, p.nq - q0);
          const int64_t row0 = p.bh(b, h) * p.nq + q0;  // flat index of query row q0
          const float* d_out = g.d_out + row0 * dv;      // [rows, dv]
          score_tile(p, b, h, q0, rows, k0, cols, kt.data(), prob.data(), kKeyTile);
          for (int64_t i = 0; i < rows; ++i) {
            float* row = prob.data() + i * kKeyTile;
            const float row_lse = g.lse[row0 + i];
            exp_shifted(row, cols, row_lse);
          }
          if (g.dv != nullptr)  // dV [cols, dv] += P^T [cols, rows] dO [rows, dv]
            tile_gemm(cols, dv, rows, 1.0f, prob.data(), 1, kKeyTile, d_out, dv, dv_acc.data(), dv, true);
          if (!need_ds) continue;
          // dP [rows, cols] = dO [rows, dv] V^T [dv, cols]
          tile_gemm(rows, cols, dv, 1.0f, d_out, dv, 1, vt.data(), kKeyTile, dprob.data(), kKeyTile, false);
          for (int64_t i = 0; i < rows; ++i) {
            float* ds = dprob.data() + i * kKeyTile;
            const float* pr = prob.data() + i * kKeyTile;
            const float delta = g.delta[row0 + i];
            for (int64_t j = 0; j < cols; ++j) ds[j] = pr[j] * (ds[j] - delta);
            for (const BiasRef& bias : p.biases) {
              if (bias.grad == nullptr) continue;
              float* gb = bias.grad + bias.offset(b, h, q0 + i, k0);
              if (bias.sk != 0) {
                for (int64_t j = 0; j < cols; ++j) gb[j] += ds[j];
              } else {
                gb[0] += row_dot(ds, nullptr, cols);
              }
            }
          }
          if (g.dk != nullptr)  // dK [cols, d] += dS^T [cols, rows] Q [rows, d]
            tile_gemm(cols, d, rows, 1.0f, dprob.data(), 1, kKeyTile, p.q_rows(b, h, q0), d,
                      dk_acc.data(), d, true);
          if (dq_base != nullptr)  // dQ [rows, d] += scale dS [rows, cols] K [cols, d]
            tile_gemm(rows, d, cols, p.scale, dprob.data(), kKeyTile, 1, p.k_rows(b, h, k0), d,
                      dq_base + row0 * d, d, true);
        }
        const int64_t key_row0 = p.bh(b, h) * p.nk + k0;
        if (g.dk != nullptr) {
          float* dst = g.dk + key_row0 * d;
          for (int64_t e = 0; e < cols * d; ++e) dst[e] += p.scale * dk_acc[e];
        }
        if (g.dv != nullptr) {
          float* dst = g.dv + key_row0 * dv;
          for (int64_t e = 0; e < cols * dv; ++e) dst[e] += dv_acc[e];
        }
      }
    }
  }
}

// Validated view of one bias: padded to rank 4 from the left, strides 0 on broadcast axes.
BiasRef make_bias_ref(const Tensor& t, const Shape& full, std::size_t index) {
  ATTEND_CHECK(t.rank() <= 4, "dense_attention bias " << index << " has rank " << t.rank()
                                                      << ", expected at most 4");
  int64_t dims[4] = {1, 1, 1, 1};
  for (int a = 0; a < t.rank(); ++a) dims[4 - t.rank() + a] = t.dim(a);
  for (int a = 0; a < 4; ++a) {
    ATTEND_CHECK(dims[a] == full[a] || dims[a] == 1,
                 "dense_attention bias " << index << " of shape " << shape_to_string(t.shape())
                                         << " does not broadcast to " << shape_to_string(full));
  }
  int64_t strides[4];
  strides[3] = 1;
  for (int a = 2; a >= 0; --a) strides[a] = strides[a + 1] * dims[a + 1];
  for (int a = 0; a < 4; ++a)
    if (dims[a] == 1) strides[a] = 0;
  BiasRef ref;
  ref.data = t.data();
  ref.sb = strides[0];
  ref.sh = strides[1];
  ref.sq = strides[2];
  ref.sk = strides[3];
  return ref;
}

// What the backward needs besides the input Vars.
struct Saved {
  int64_t B, H, nq, nk, d, dv;
  float scale;
  bool causal;
  bool has_mask;
  Tensor mask;   // copy of the key mask [B or 1, nk]
  Tensor lse;    // [B, H, nq]
  Tensor o;      // un-gated output [B, H, nq, dv] (only with a gate)
};

Problem make_problem(const Saved& s, const Var& q, const Var& k, const Var& v,
                     const std::vector<Var>& biases) {
  Problem p;
  p.B = s.B;
  p.H = s.H;
  p.nq = s.nq;
  p.nk = s.nk;
  p.d = s.d;
  p.dv = s.dv;
  p.scale = s.scale;
  p.causal = s.causal;
  p.q = q.value().data();
  p.k = k.value().data();
  p.v = v.value().data();
  const Shape full{s.B, s.H, s.nq, s.nk};
  for (std::size_t i = 0; i < biases.size(); ++i)
    p.biases.push_back(make_bias_ref(biases[i].value(), full, i));
  if (s.has_mask) {
    p.mask = s.mask.data();
    p.mask_sb = s.mask.dim(0) == 1 ? 0 : s.nk;
  }
  return p;
}

void dense_attention_backward(const Saved& saved, const Var& q, const Var& k, const Var& v,
                              const std::vector<Var>& biases, const Var& gate,
                              const Tensor& out_value, const Tensor& grad) {
  Problem p = make_problem(saved, q, k, v, biases);
  const int64_t B = p.B, H = p.H, nq = p.nq, nk = p.nk, d = p.d, dv = p.dv;
  const int64_t n_rows = B * H * nq;

  const bool need_q = q.requires_grad(), need_k = k.requires_grad(), need_v = v.requires_grad();
  bool any_bias_grad = false;
  for (std::size_t i = 0; i < biases.size(); ++i) {
    if (!biases[i].requires_grad()) continue;
    p.biases[i].grad = biases[i].grad_mut().data();
    any_bias_grad = true;
  }
  const bool need_attention = need_q || need_k || need_v || any_bias_grad;

  // One pass over rows: the gate's gradients, then delta = rowsum(dO * O) [B, H, nq] while the
  // rows are in cache. Gate: out = sigmoid(gate) * o, so dO = grad * sigmoid(gate) and
  // dgate = grad * o * sigmoid(gate) * (1 - sigmoid(gate)).
  const Tensor& o = gate.defined() ? saved.o : out_value;  // [B, H, nq, dv]
  Tensor d_out_gated = gate.defined() ? Tensor::uninitialized(grad.shape()) : Tensor();  // every element written
  const float* d_out = gate.defined() ? d_out_gated.data() : grad.data();
  float* dgate = gate.defined() && gate.requires_grad() ? gate.grad_mut().data() : nullptr;
  Tensor delta = need_attention ? Tensor::uninitialized({B, H, nq}) : Tensor();
  parallel_for_blocks(n_rows, 256, [&](int64_t lo, int64_t hi) {
    if (gate.defined()) {
      const float* __restrict gv = gate.value().data();  // locals, so that the loops vectorise
      const float* __restrict gr = grad.data();
      const float* __restrict ov = o.data();
      float* __restrict dout = d_out_gated.data();
      if (dgate == nullptr) {
        for (int64_t e = lo * dv; e < hi * dv; ++e) dout[e] = gr[e] * sigmoid_approx(gv[e]);
      } else {
        float* __restrict dg = dgate;
        for (int64_t e = lo * dv; e < hi * dv; ++e) {
          const float sg = sigmoid_approx(gv[e]);
          dout[e] = gr[e] * sg;
          dg[e] += gr[e] * ov[e] * sg * (1.0f - sg);
        }
      }
    }
    if (need_attention)
      for (int64_t r = lo; r < hi; ++r) delta[r] = row_dot(d_out + r * dv, o.data() + r * dv, dv);
  });
  if (!need_attention) return;

  // Work items: (b, h, key segment); batches or heads are folded into one item when a bias
  // that needs a gradient is broadcast over them, and a bias broadcast over keys keeps one
  // segment, so every gradient element has exactly one owner.
  bool fold_b = false, fold_h = false, one_segment = false;
  for (const BiasRef& bias : p.biases) {
    if (bias.grad == nullptr) continue;
    fold_b = fold_b || (bias.sb == 0 && B > 1);
    fold_h = fold_h || (bias.sh == 0 && H > 1);
    one_segment = one_segment || (bias.sk == 0 && nk > 1);
  }
  const int64_t n_b = fold_b ? 1 : B, n_h = fold_h ? 1 : H;
  const int64_t n_tiles = (nk + kKeyTile - 1) / kKeyTile;
  int64_t segments = 1;
  if (!one_segment && n_tiles > 1 && n_b * n_h < kTargetItems) {
    segments = (kTargetItems + n_b * n_h - 1) / (n_b * n_h);
    segments = std::min({segments, n_tiles, need_q ? kMaxKeySegments : n_tiles});
  }

  GradTargets g;
  g.d_out = d_out;
  g.lse = saved.lse.data();
  g.delta = delta.data();
  g.any_bias_grad = any_bias_grad;
  g.dk = need_k ? k.grad_mut().data() : nullptr;
  g.dv = need_v ? v.grad_mut().data() : nullptr;
  // dQ partials of the key segments after the first, [segments - 1, B, H, nq, d]; segment 0
  // adds into dQ itself unless dQ is also dK's or dV's buffer (q is k or v), then it gets a
  // partial of its own ([segments, ...]).
  Tensor dq_partials;
  int64_t own_partials = 0;  // 1 when segment 0 has a partial
  if (need_q) {
    float* dq = q.grad_mut().data();
    g.dq = dq;
    if (segments > 1) {
      own_partials = dq == g.dk || dq == g.dv ? 1 : 0;
      dq_partials = Tensor({segments - 1 + own_partials, B, H, nq, d});
      g.dq_segment_stride = n_rows * d;
      g.dq = own_partials == 1 ? dq_partials.data() : dq;
      g.dq_later = dq_partials.data() + own_partials * g.dq_segment_stride;
    }
  }

  parallel_for(0, n_b * n_h * segments, [&](int64_t item) {
    const int64_t segment = item % segments;
    const int64_t bh_item = item / segments;
    const int64_t hi = bh_item % n_h, bi = bh_item / n_h;
    const int64_t b0 = fold_b ? 0 : bi, b1 = fold_b ? B : bi + 1;
    const int64_t h0 = fold_h ? 0 : hi, h1 = fold_h ? H : hi + 1;
    const int64_t u0 = segment * n_tiles / segments, u1 = (segment + 1) * n_tiles / segments;
    backward_item(p, g, b0, b1, h0, h1, u0, u1, segment);
  });

  if (need_q && segments > 1) {  // dQ += partials, summed in segment order
    float* dq = q.grad_mut().data();
    const int64_t n_partials = segments - 1 + own_partials;
    parallel_for_blocks(n_rows * d, 1 << 14, [&](int64_t lo, int64_t hi) {
      for (int64_t e = lo; e < hi; ++e) {
        float sum = dq[e];
        for (int64_t s = 0; s < n_partials; ++s) sum += dq_partials[s * n_rows * d + e];
        dq[e] = sum;
      }
    });
  }
}

}  // namespace

Var dense_attention(const Var& q, const Var& k, const Var& v, const DenseAttentionOptions& options,
                    Tensor* weights_out) {
  const Tensor& qv = q.value();
  const Tensor& kv = k.value();
  const Tensor& vv = v.value();
  ATTEND_CHECK(qv.rank() == 4 && kv.rank() == 4 && vv.rank() == 4,
               "dense_attention expects q [B, H, Nq, d], k [B, H, Nk, d], v [B, H, Nk, dv]; got "
                   << shape_to_string(qv.shape()) << ", " << shape_to_string(kv.shape()) << ", "
                   << shape_to_string(vv.shape()));
  const int64_t B = qv.dim(0), H = qv.dim(1), nq = qv.dim(2), d = qv.dim(3);
  const int64_t nk = kv.dim(2), dv = vv.dim(3);
  ATTEND_CHECK(kv.dim(0) == B && kv.dim(1) == H && kv.dim(3) == d && vv.dim(0) == B &&
                   vv.dim(1) == H && vv.dim(2) == nk,
               "dense_attention shapes disagree: q " << shape_to_string(qv.shape()) << ", k "
                                                     << shape_to_string(kv.shape()) << ", v "
                                                     << shape_to_string(vv.shape()));
  ATTEND_CHECK(options.scale != 0.0f || d > 0, "dense_attention needs d > 0 for the default scale");
  ATTEND_CHECK(!options.return_weights || weights_out != nullptr,
               "dense_attention: return_weights is set but weights_out is null");
  ATTEND_CHECK(options.chunk_size >= 0, "dense_attention chunk_size must be >= 0, got "
                                            << options.chunk_size);

  auto saved = std::make_shared<Saved>();
  saved->B = B;
  saved->H = H;
  saved->nq = nq;
  saved->nk = nk;
  saved->d = d;
  saved->dv = dv;
  saved->scale = options.scale != 0.0f ? options.scale : 1.0f / std::sqrt(static_cast<float>(d));
  saved->causal = options.causal;
  saved->has_mask = options.key_mask != nullptr;
  if (saved->has_mask) {
    const Tensor& mask = *options.key_mask;
    ATTEND_CHECK(mask.rank() == 2 && (mask.dim(0) == B || mask.dim(0) == 1) && mask.dim(1) == nk,
                 "dense_attention key mask of shape " << shape_to_string(mask.shape())
                                                      << ", expected [" << B << ", " << nk << "]");
    saved->mask = mask;
  }
  if (options.gate.defined()) {
    ATTEND_CHECK(options.gate.shape() == (Shape{B, H, nq, dv}),
                 "dense_attention gate of shape " << shape_to_string(options.gate.shape())
                                                  << ", expected [" << B << ", " << H << ", "
                                                  << nq << ", " << dv << "]");
  }
  for (const Var& bias : options.biases) ATTEND_CHECK(bias.defined(), "dense_attention: undefined bias");
  const Problem p = make_problem(*saved, q, k, v, options.biases);

  std::vector<Var> inputs{q, k, v};
  for (const Var& bias : options.biases) inputs.push_back(bias);
  if (options.gate.defined()) inputs.push_back(options.gate);
  bool record = false;
  for (const Var& in : inputs) record = record || in.requires_grad();
  record = record && grad_enabled();

  float* weights = nullptr;
  if (options.return_weights) {
    *weights_out = Tensor({B, H, nq, nk}, -kInf);  // tiles skipped by causal masking stay -inf
    weights = weights_out->data();
  }

  // The un-gated output o [B, H, nq, dv] is the result without a gate, and the backward's
  // input with one; the gated result sigmoid(gate) * o is written in the same pass.
  const bool gated = options.gate.defined(), keep_o = !gated || record;
  Tensor o = keep_o ? Tensor::uninitialized({B, H, nq, dv}) : Tensor();  // every element written
  Tensor out = gated ? Tensor::uninitialized({B, H, nq, dv}) : Tensor();
  Tensor lse = Tensor::uninitialized({B, H, nq});
  ForwardTargets targets;
  targets.o = keep_o ? o.data() : nullptr;
  targets.gate = gated ? options.gate.value().data() : nullptr;
  targets.gated = gated ? out.data() : nullptr;
  targets.lse = lse.data();
  targets.weights = weights;
  int64_t chunk = options.chunk_size > 0 ? options.chunk_size : kDefaultChunk;
  chunk = (chunk + kQueryTile - 1) / kQueryTile * kQueryTile;
  const int64_t n_chunks = (nq + chunk - 1) / chunk;
  // Items run head-major when every bias is shared across the batch (the Evoformer's pair
  // bias [1, H, N, N]): a thread then sweeps one head's bias for consecutive batches while it
  // is in cache, instead of all heads' per batch. Each item writes its own rows, so the order
  // does not change any result.
  bool heads_outer = !p.biases.empty();
  for (const BiasRef& bias : p.biases) heads_outer = heads_outer && bias.sb == 0;
  parallel_for(0, B * H * n_chunks, [&](int64_t item) {
    const int64_t c = item % n_chunks, outer = item / n_chunks;
    const int64_t b = heads_outer ? outer % B : outer / H, h = heads_outer ? outer / B : outer % H;
    const int64_t c0 = c * chunk, c1 = std::min(nq, c0 + chunk);
    forward_chunk(p, b, h, c0, c1, targets);
  });

  if (gated) {
    if (record) saved->o = std::move(o);
  } else {
    out = std::move(o);
  }
  if (!record) return Var(std::move(out), false);
  saved->lse = std::move(lse);
  return Var::from_op(std::move(out), inputs,
                      [saved, q, k, v, biases = options.biases, gate = options.gate](
                          const Tensor& value, const Tensor& grad) {
                        dense_attention_backward(*saved, q, k, v, biases, gate, value, grad);
                      });
}

}  // namespace attend::ops
