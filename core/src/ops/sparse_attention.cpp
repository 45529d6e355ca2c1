#include "attend/core/ops/sparse_attention.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "attend/core/error.hpp"
#include "attend/core/fast_exp.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/random.hpp"

namespace attend::ops {

using Rule = SparseScores::Rule;

SparseScores SparseScores::gat(Var s_src, Var s_dst) {
  SparseScores s;
  s.rule = Rule::kGat;
  s.src = std::move(s_src);
  s.dst = std::move(s_dst);
  return s;
}

SparseScores SparseScores::gatv2(Var x_src, Var x_dst, Var att) {
  SparseScores s;
  s.rule = Rule::kGatV2;
  s.src = std::move(x_src);
  s.dst = std::move(x_dst);
  s.att = std::move(att);
  return s;
}

SparseScores SparseScores::dot(Var q, Var k, Var edge) {
  SparseScores s;
  s.rule = Rule::kDot;
  s.src = std::move(k);
  s.dst = std::move(q);
  s.edge = std::move(edge);
  return s;
}

SparseScores SparseScores::precomputed(Var logits) {
  SparseScores s;
  s.rule = Rule::kLogits;
  s.logits = std::move(logits);
  return s;
}

namespace {

/// Destination rows per parallel work item. Row results never depend on it; the per-block
/// partial sums of the att gradient do, and it is a constant, so results do not depend on
/// the thread count.
constexpr int64_t kRowBlock = 128;
/// How many edges ahead the kernels prefetch rows gathered in random order.
constexpr int64_t kAhead = 8;

float leaky(float x, float slope) { return x > 0.0f ? x : slope * x; }
float leaky_derivative(float x, float slope) { return x > 0.0f ? 1.0f : slope; }

/// Hint the `n` floats at `p` into cache, one hint per 64-byte line. The kernels gather node
/// rows in edge order (random for most graphs, so memory latency dominates): they ask for
/// the rows of the edge kAhead positions on, or for a row a little before they read it.
[[gnu::always_inline]] inline void prefetch(const float* p, int64_t n) {
  for (int64_t k = 0; k < n; k += 16) __builtin_prefetch(p + k);
}

/// Eight floats in one vector register (AVX), for the lanes of dot_product.
using Lanes8 = float __attribute__((vector_size(32)));

/// a . b in eight interleaved partial sums added as a tree: short rows (a head's 4 to 64
/// channels) vectorise without the lane-by-lane epilogue of an `omp simd` reduction. The
/// order depends on n only: lane l sums a[k] b[k] over k = l mod 8 in order, then
/// ((l0 + l4) + (l1 + l5)) + ((l2 + l6) + (l3 + l7)). Rows of a multiple of 8 channels keep
/// the eight lanes in one register and add the tree with one swap of lanes per level (the
/// same sums: a + b = b + a bit for bit), where GCC made the loop below 8 scalar multiply-adds
/// and 7 scalar adds per head (Cora-shaped GAT backward_messages: 1.01 -> 0.66 ms per step on
/// one core, docs/performance.md).
template <int64_t kFixedN = 0>
[[gnu::always_inline]] inline float dot_product_n(const float* a, const float* b, int64_t runtime_n) {
  const int64_t n = kFixedN > 0 ? kFixedN : runtime_n;
  if (n % 8 == 0) {
    Lanes8 lane{};
    for (int64_t k = 0; k < n; k += 8) {
      Lanes8 x, y;
      std::memcpy(&x, a + k, sizeof x);
      std::memcpy(&y, b + k, sizeof y);
      lane += x * y;
    }
    using Index8 = int __attribute__((vector_size(32)));
    const Lanes8 half = lane + __builtin_shuffle(lane, Index8{4, 5, 6, 7, 0, 1, 2, 3});  // l + l4
    const Lanes8 pair = half + __builtin_shuffle(half, Index8{1, 0, 3, 2, 5, 4, 7, 6});
    return pair[0] + pair[2];
  }
  float lane[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
  int64_t k = 0;
  for (; k + 8 <= n; k += 8) {
    for (int l = 0; l < 8; ++l) lane[l] += a[k + l] * b[k + l];
  }
  for (int l = 0; k < n; ++k, ++l) lane[l] += a[k] * b[k];
  return ((lane[0] + lane[4]) + (lane[1] + lane[5])) + ((lane[2] + lane[6]) + (lane[3] + lane[7]));
}

/// The same sum with the common head widths compiled in (a well-predicted branch: one width
/// per call of a kernel), which removes the loop overhead around one or two vector registers.
[[gnu::always_inline]] inline float dot_product(const float* a, const float* b, int64_t n) {
  if (n == 8) return dot_product_n<8>(a, b, n);
  if (n == 16) return dot_product_n<16>(a, b, n);
  return dot_product_n(a, b, n);
}

template <int64_t kFixedN = 0>
[[gnu::always_inline]] inline void axpy_n(float alpha, const float* x, float* y, int64_t runtime_n) {
  const int64_t n = kFixedN > 0 ? kFixedN : runtime_n;
#pragma omp simd
  for (int64_t k = 0; k < n; ++k) y[k] += alpha * x[k];
}

/// y += alpha x, with the common head widths compiled in as for dot_product.
[[gnu::always_inline]] inline void axpy(float alpha, const float* x, float* y, int64_t n) {
  if (n == 8) return axpy_n<8>(alpha, x, y, n);
  if (n == 16) return axpy_n<16>(alpha, x, y, n);
  axpy_n(alpha, x, y, n);
}

/// Sizes, graph arrays and input pointers of one call, checked once.
struct Problem {
  int64_t n = 0, n_edges = 0, heads = 0;
  int64_t c = 0;  ///< value channels
  int64_t d = 1;  ///< channels of the score inputs (C' for gatv2, D for dot, 1 for gat)
  float slope = 0.2f, scale = 1.0f;
  const int64_t *indptr = nullptr, *src = nullptr, *edge_id = nullptr;
  const int64_t *out_indptr = nullptr, *out_dst = nullptr, *out_pos = nullptr;
  const float *s_src = nullptr, *s_dst = nullptr, *att = nullptr, *edge = nullptr;
  const float* logits = nullptr;
  const float* values = nullptr;
  bool dropout = false;
  float p_drop = 0.0f, keep_scale = 1.0f;
  CounterStream stream{0};
  /// [E, H] dropout multipliers by destination-major position (see dropout_mask); set when
  /// `dropout`.
  const float* mask = nullptr;
  /// [E] the graph's edge scale by edge id (Csr::edge_scale), multiplied into each edge's
  /// message after the softmax; null when the graph has none.
  const float* edge_scale = nullptr;
};

/// The dropout multipliers [E, H] by position: 0 or 1 / (1 - p) for (edge id, head), from
/// the counter stream at id * H + h, so they depend on the edge ids, not on the Csr order.
/// Made once per forward and kept for the backward; the loop over heads vectorises.
Tensor dropout_mask(const Problem& pr) {
  Tensor mask = Tensor::uninitialized({pr.n_edges, pr.heads});  // [E, H]
  const int64_t heads = pr.heads;
  float* m = mask.data();
  parallel_for_blocks(pr.n_edges, kRowBlock * 16, [&](int64_t lo, int64_t hi) {
    for (int64_t p = lo; p < hi; ++p) {
      const uint64_t base = static_cast<uint64_t>(pr.edge_id[p] * heads);
      for (int64_t h = 0; h < heads; ++h) {
        m[p * heads + h] = pr.stream.at(base + static_cast<uint64_t>(h)) < pr.p_drop ? 0.0f : pr.keep_scale;
      }
    }
  });
  return mask;
}

Problem make_problem(const Csr& graph, const SparseScores& scores, const Var& values,
                     const SparseAttentionOptions& options) {
  Problem pr;
  const bool given = scores.rule == Rule::kLogits;
  ATTEND_CHECK(values.defined() && (given ? scores.logits.defined()
                                          : scores.src.defined() && scores.dst.defined()),
               "sparse_attention: values and the score inputs must be defined");
  const Tensor& v = values.value();
  const Tensor& s = given ? scores.logits.value() : scores.src.value();
  const Tensor& t = given ? scores.logits.value() : scores.dst.value();
  pr.n = graph.n_nodes();
  pr.n_edges = graph.n_edges();
  ATTEND_CHECK(v.rank() == 3 && v.dim(0) == pr.n,
               "sparse_attention: values of shape " << shape_to_string(v.shape())
                                                    << ", expected [N, H, C] with N = " << pr.n);
  pr.heads = v.dim(1);
  pr.c = v.dim(2);
  ATTEND_CHECK(s.shape() == t.shape(), "sparse_attention: source term "
                                           << shape_to_string(s.shape())
                                           << " and destination term "
                                           << shape_to_string(t.shape()) << " differ");
  switch (scores.rule) {
    case Rule::kGat:
      ATTEND_CHECK(s.shape() == (Shape{pr.n, pr.heads}),
                   "sparse_attention (gat): per-node terms of shape "
                       << shape_to_string(s.shape()) << ", expected [N, H] = [" << pr.n << ", "
                       << pr.heads << "]");
      pr.d = 1;
      break;
    case Rule::kGatV2:
      ATTEND_CHECK(s.rank() == 3 && s.dim(0) == pr.n && s.dim(1) == pr.heads,
                   "sparse_attention (gatv2): x_src of shape "
                       << shape_to_string(s.shape()) << ", expected [N, H, C'] with N = "
                       << pr.n << ", H = " << pr.heads);
      pr.d = s.dim(2);
      ATTEND_CHECK(scores.att.defined() && scores.att.value().shape() == (Shape{pr.heads, pr.d}),
                   "sparse_attention (gatv2): att must be [H, C'] = [" << pr.heads << ", "
                                                                       << pr.d << "]");
      pr.att = scores.att.value().data();
      break;
    case Rule::kDot:
      ATTEND_CHECK(s.rank() == 3 && s.dim(0) == pr.n && s.dim(1) == pr.heads,
                   "sparse_attention (dot): keys of shape " << shape_to_string(s.shape())
                                                            << ", expected [N, H, D] with N = "
                                                            << pr.n << ", H = " << pr.heads);
      pr.d = s.dim(2);
      ATTEND_CHECK(pr.d > 0, "sparse_attention (dot): zero-width queries and keys");
      if (scores.edge.defined()) {
        ATTEND_CHECK(scores.edge.value().shape() == (Shape{pr.n_edges, pr.heads, pr.d}) &&
                         pr.d == pr.c,
                     "sparse_attention (dot): edge features of shape "
                         << shape_to_string(scores.edge.value().shape())
                         << ", expected [E, H, D] = [" << pr.n_edges << ", " << pr.heads << ", "
                         << pr.d << "] with D equal to the value channels " << pr.c);
        pr.edge = scores.edge.value().data();
      }
      break;
    case Rule::kLogits:
      ATTEND_CHECK(s.shape() == (Shape{pr.n_edges, pr.heads}),
                   "sparse_attention (precomputed): logits of shape "
                       << shape_to_string(s.shape()) << ", expected [E, H] = [" << pr.n_edges
                       << ", " << pr.heads << "]");
      pr.d = 1;
      pr.logits = s.data();
      break;
  }
  ATTEND_CHECK(options.dropout >= 0.0f && options.dropout < 1.0f,
               "sparse_attention: dropout " << options.dropout << " outside [0, 1)");
  ATTEND_CHECK(std::isfinite(options.negative_slope),
               "sparse_attention: negative_slope " << options.negative_slope);
  pr.slope = options.negative_slope;
  pr.scale = options.scale.value_or(1.0f / std::sqrt(static_cast<float>(pr.d)));
  pr.indptr = graph.indptr().data();
  pr.src = graph.src().data();
  pr.edge_id = graph.edge_id().data();
  pr.out_indptr = graph.out_indptr().data();
  pr.out_dst = graph.out_dst().data();
  pr.out_pos = graph.out_pos().data();
  if (!given) {
    pr.s_src = s.data();
    pr.s_dst = t.data();
  }
  pr.values = v.data();
  if (graph.edge_scale().defined()) pr.edge_scale = graph.edge_scale().value().data();
  pr.dropout = options.training && options.dropout > 0.0f;
  pr.p_drop = options.dropout;
  pr.keep_scale = 1.0f / (1.0f - options.dropout);
  pr.stream = CounterStream(options.seed);
  return pr;
}

/// Raw scores e[h] of the edge j -> i with id `id`, all heads.
template <Rule R>
void edge_scores(const Problem& pr, int64_t i, int64_t j, int64_t id, float* e) {
  const int64_t heads = pr.heads, d = pr.d;
  if constexpr (R == Rule::kGat) {
    for (int64_t h = 0; h < heads; ++h) {
      e[h] = leaky(pr.s_src[j * heads + h] + pr.s_dst[i * heads + h], pr.slope);
    }
  } else if constexpr (R == Rule::kGatV2) {
    for (int64_t h = 0; h < heads; ++h) {
      const float* xs = pr.s_src + (j * heads + h) * d;  // [C']
      const float* xd = pr.s_dst + (i * heads + h) * d;  // [C']
      const float* a = pr.att + h * d;                   // [C']
      float acc = 0.0f;
#pragma omp simd reduction(+ : acc)
      for (int64_t k = 0; k < d; ++k) acc += a[k] * leaky(xs[k] + xd[k], pr.slope);
      e[h] = acc;
    }
  } else if constexpr (R == Rule::kLogits) {
    for (int64_t h = 0; h < heads; ++h) e[h] = pr.logits[id * heads + h];
  } else {
    for (int64_t h = 0; h < heads; ++h) {
      const float* q = pr.s_dst + (i * heads + h) * d;  // [D]
      float acc = dot_product(q, pr.s_src + (j * heads + h) * d, d);
      if (pr.edge) acc += dot_product(q, pr.edge + (id * heads + h) * d, d);
      e[h] = acc * pr.scale;
    }
  }
}

/// In place, per head (column) of w [deg, H]: max-subtracted softmax over the deg rows.
void softmax_columns(float* w, int64_t deg, int64_t heads, float* mx, float* sum) {
  for (int64_t h = 0; h < heads; ++h) {
    mx[h] = -std::numeric_limits<float>::infinity();
    sum[h] = 0.0f;
  }
  for (int64_t p = 0; p < deg; ++p) {
    for (int64_t h = 0; h < heads; ++h) mx[h] = std::max(mx[h], w[p * heads + h]);
  }
  for (int64_t p = 0; p < deg; ++p) {
    for (int64_t h = 0; h < heads; ++h) {
      const float x = exp_approx(w[p * heads + h] - mx[h]);
      w[p * heads + h] = x;
      sum[h] += x;
    }
  }
  for (int64_t h = 0; h < heads; ++h) sum[h] = 1.0f / sum[h];
  for (int64_t p = 0; p < deg; ++p) {
    for (int64_t h = 0; h < heads; ++h) w[p * heads + h] *= sum[h];
  }
}

/// Forward over destination rows. `probs` [E, H] receives the probabilities when not null.
/// kScaled: the graph has an edge scale (compiled apart, as backward_messages).
template <Rule R, bool kScaled>
void forward_rows(const Problem& pr, float* probs, float* out) {
  const int64_t heads = pr.heads, c = pr.c, hc = heads * c, hd = heads * pr.d;
  const int64_t n_edges = pr.n_edges;
  const int64_t* src = pr.src;
  const float *values = pr.values, *s_src = pr.s_src;
  parallel_for_blocks(pr.n, kRowBlock, [&](int64_t lo, int64_t hi) {
    std::vector<float> scratch, mx(heads), sum(heads);
    for (int64_t i = lo; i < hi; ++i) {
      const int64_t begin = pr.indptr[i], deg = pr.indptr[i + 1] - begin;
      float* o = out + i * hc;  // [H, C]
      std::fill(o, o + hc, 0.0f);
      if (deg == 0) continue;  // zero in-degree: the output row stays zero
      float* w = probs ? probs + begin * heads : nullptr;  // [deg, H]
      if (!w) {
        if (static_cast<int64_t>(scratch.size()) < deg * heads) scratch.resize(deg * heads);
        w = scratch.data();
      }
      for (int64_t p = 0; p < deg; ++p) {
        const int64_t pos = begin + p, j = src[pos];
        if constexpr (R != Rule::kLogits) {
          if (pos + kAhead < n_edges) prefetch(s_src + src[pos + kAhead] * hd, hd);
        }
        prefetch(values + j * hc, hc);  // used by the aggregation below
        edge_scores<R>(pr, i, j, pr.edge_id[pos], w + p * heads);
      }
      softmax_columns(w, deg, heads, mx.data(), sum.data());
      for (int64_t p = 0; p < deg; ++p) {
        const int64_t j = src[begin + p], id = pr.edge_id[begin + p];
        const float* a = w + p * heads;                                    // [H]
        const float* m = pr.dropout ? pr.mask + (begin + p) * heads : nullptr;  // [H]
        const float* vj = values + j * hc;                                 // [H, C]
        const float* ej = pr.edge ? pr.edge + id * hc : nullptr;           // [H, C]
        for (int64_t h = 0; h < heads; ++h) {
          float weight = m ? a[h] * m[h] : a[h];
          if constexpr (kScaled) weight *= pr.edge_scale[id];
          axpy(weight, vj + h * c, o + h * c, c);
          if (ej) axpy(weight, ej + h * c, o + h * c, c);
        }
      }
    }
  });
}

/// Gradient buffers (null when the input needs none).
struct Grads {
  float *values = nullptr, *src = nullptr, *dst = nullptr, *att = nullptr, *edge = nullptr;
  float* logits = nullptr;
  float* edge_scale = nullptr;  ///< [E] by edge id
};

/// Backward pass 1, over source rows [lo, hi) through the transpose, one gathered row g_i per
/// edge j -> i: the gradient of the edge's attention weights, d alpha = g_i . v_j (+ g_i . e_ij
/// for edge features), times the dropout mask and the edge scale s, written into `dscore`
/// [E, H] at the edge's destination-major position; the value gradient
/// g_v[j] += alpha s g_i; and the edge scale's gradient g_s[id] += sum_h alpha_h m_h d alpha_h.
/// The row v_j stays in cache while its out-edges are visited, so backward gathers one wide
/// row per edge, not two. Each position of `dscore`, each row of g_v and each edge of g_s is
/// written by its source row only. kScaled: the graph has an edge scale (compiled apart, so
/// the pass without one does no per-edge test and reads no edge id it does not need).
template <bool kScaled>
void backward_messages(const Problem& pr, const float* probs, const float* gy, float* dscore,
                       float* g_values, float* g_scale, int64_t lo, int64_t hi) {
  if (!dscore && !g_values) return;
  const int64_t heads = pr.heads, c = pr.c, hc = heads * c;
  const int64_t n_edges = pr.n_edges;
  const int64_t *out_dst = pr.out_dst, *out_pos = pr.out_pos;
  const float *values = pr.values, *edge = pr.edge, *scale = pr.edge_scale;
  for (int64_t j = lo; j < hi; ++j) {
    const float* vj = values + j * hc;  // [H, C]
    float* gv = g_values ? g_values + j * hc : nullptr;  // [H, C]
    for (int64_t k = pr.out_indptr[j]; k < pr.out_indptr[j + 1]; ++k) {
      if (k + kAhead < n_edges) {  // rows of a later out-edge, gathered by destination
        const int64_t ia = out_dst[k + kAhead], pa = out_pos[k + kAhead];
        prefetch(gy + ia * hc, hc);
        prefetch(probs + pa * heads, heads);
        if (pr.dropout) prefetch(pr.mask + pa * heads, heads);
      }
      const int64_t i = out_dst[k], p = out_pos[k];
      const float* gi = gy + i * hc;  // [H, C]
      const float* m = pr.dropout ? pr.mask + p * heads : nullptr;  // [H]
      const float* a = probs + p * heads;  // [H]
      // The edge id (a gather by position) only when something is keyed by it.
      const int64_t id = kScaled || edge ? pr.edge_id[p] : -1;
      if (dscore) {  // a dropped head's d alpha is zero (times m = 0)
        float* dsp = dscore + p * heads;  // [H]
        const float* ej = edge ? edge + id * hc : nullptr;  // [H, C]
        float d_scale = 0.0f;
        for (int64_t h = 0; h < heads; ++h) {
          dsp[h] = dot_product(gi + h * c, vj + h * c, c);
          if (ej) dsp[h] += dot_product(gi + h * c, ej + h * c, c);
          if constexpr (kScaled) {
            if (g_scale) d_scale += (m ? a[h] * m[h] : a[h]) * dsp[h];
          }
          if (m) dsp[h] *= m[h];
          if constexpr (kScaled) dsp[h] *= scale[id];
        }
        if (kScaled && g_scale) g_scale[id] += d_scale;
      }
      if (gv) {
        for (int64_t h = 0; h < heads; ++h) {
          float weight = m ? a[h] * m[h] : a[h];
          if constexpr (kScaled) weight *= scale[id];
          axpy(weight, gi + h * c, gv + h * c, c);
        }
      }
    }
  }
}

/// Backward pass 2, over destination rows [lo, hi) (lo a multiple of kRowBlock): softmax
/// backward of the d alpha in `dscore`, in place, into the score gradients (for gat times the
/// LeakyReLU derivative); gradients of the destination terms, of the edge features and of
/// precomputed logits (each edge written by its destination row only), and per-block partial
/// sums of the att gradient in `att_partial` [blocks, H, C'].
template <Rule R>
void backward_rows(const Problem& pr, const float* probs, const float* gy, float* dscore,
                   const Grads& g, float* att_partial, int64_t lo, int64_t hi) {
  const int64_t heads = pr.heads, c = pr.c, d = pr.d, hd = heads * d;
  const int64_t n_edges = pr.n_edges;
  const int64_t *src = pr.src, *edge_id = pr.edge_id;
  const float *s_src = pr.s_src, *s_dst = pr.s_dst, *edge = pr.edge;
  std::vector<float> total(heads);
  float* att_acc = att_partial ? att_partial + (lo / kRowBlock) * hd : nullptr;
  for (int64_t i = lo; i < hi; ++i) {
    const int64_t begin = pr.indptr[i], deg = pr.indptr[i + 1] - begin;
    if (deg == 0) continue;
    const float* w = probs + begin * heads;  // [deg, H]
    float* ds = dscore + begin * heads;      // [deg, H]
    const float* gi = gy + i * heads * c;    // [H, C]
    // Softmax backward: de = w (d alpha - sum_p w d alpha).
    for (int64_t h = 0; h < heads; ++h) total[h] = 0.0f;
    for (int64_t p = 0; p < deg; ++p) {
      for (int64_t h = 0; h < heads; ++h) total[h] += w[p * heads + h] * ds[p * heads + h];
    }
    for (int64_t p = 0; p < deg; ++p) {
      for (int64_t h = 0; h < heads; ++h) {
        ds[p * heads + h] = w[p * heads + h] * (ds[p * heads + h] - total[h]);
      }
    }
    // Through the scoring rule, destination side.
    for (int64_t p = 0; p < deg; ++p) {
      const int64_t pos = begin + p, j = src[pos], id = edge_id[pos];
      if constexpr (R != Rule::kLogits) {
        if (pos + kAhead < n_edges) prefetch(s_src + src[pos + kAhead] * hd, hd);
      }
      for (int64_t h = 0; h < heads; ++h) {
        float& de = ds[p * heads + h];
        if constexpr (R == Rule::kGat) {
          de *= leaky_derivative(s_src[j * heads + h] + s_dst[i * heads + h], pr.slope);
          if (g.dst) g.dst[i * heads + h] += de;
        } else if constexpr (R == Rule::kLogits) {
          if (g.logits) g.logits[id * heads + h] += de;
        } else if constexpr (R == Rule::kGatV2) {
          const float* xs = s_src + (j * heads + h) * d;  // [C']
          const float* xd = s_dst + (i * heads + h) * d;  // [C']
          const float* a = pr.att + h * d;                // [C']
          if (g.dst) {
            float* gd = g.dst + (i * heads + h) * d;
#pragma omp simd
            for (int64_t k = 0; k < d; ++k) {
              gd[k] += de * a[k] * leaky_derivative(xs[k] + xd[k], pr.slope);
            }
          }
          if (att_acc) {
            float* ga = att_acc + h * d;
#pragma omp simd
            for (int64_t k = 0; k < d; ++k) ga[k] += de * leaky(xs[k] + xd[k], pr.slope);
          }
        } else {
          const float des = de * pr.scale;
          if (g.dst) {
            float* gq = g.dst + (i * heads + h) * d;
            axpy(des, s_src + (j * heads + h) * d, gq, d);
            if (edge) axpy(des, edge + (id * heads + h) * d, gq, d);
          }
          if (g.edge) {  // score term and message term of edge (id, h)
            float* ge = g.edge + (id * heads + h) * d;
            axpy(des, s_dst + (i * heads + h) * d, ge, d);
            const float drop = pr.dropout ? pr.mask[pos * heads + h] : 1.0f;
            float weight = w[p * heads + h] * drop;
            if (pr.edge_scale) weight *= pr.edge_scale[id];
            axpy(weight, gi + h * c, ge, c);
          }
        }
      }
    }
  }
}

/// Backward pass 3, over source rows [lo, hi) through the transpose: gradients of the source
/// terms. Each source row sums over its out-edges in position order.
template <Rule R>
void backward_sources(const Problem& pr, const float* dscore, const Grads& g, int64_t lo, int64_t hi) {
  const int64_t heads = pr.heads, d = pr.d, hd = heads * d;
  const int64_t n_edges = pr.n_edges;
  const int64_t *out_dst = pr.out_dst, *out_pos = pr.out_pos;
  const float *s_src = pr.s_src, *s_dst = pr.s_dst;
  for (int64_t j = lo; j < hi; ++j) {
    for (int64_t k = pr.out_indptr[j]; k < pr.out_indptr[j + 1]; ++k) {
      if (k + kAhead < n_edges) {  // rows of a later out-edge, gathered by destination
        prefetch(dscore + out_pos[k + kAhead] * heads, heads);
        if constexpr (R != Rule::kGat) prefetch(s_dst + out_dst[k + kAhead] * hd, hd);
      }
      const int64_t i = out_dst[k], p = out_pos[k];
      const float* de = dscore + p * heads;  // [H]
      if constexpr (R == Rule::kGat) {
        for (int64_t h = 0; h < heads; ++h) g.src[j * heads + h] += de[h];
      } else if constexpr (R == Rule::kGatV2) {
        for (int64_t h = 0; h < heads; ++h) {
          const float* xs = s_src + (j * heads + h) * d;  // [C']
          const float* xd = s_dst + (i * heads + h) * d;  // [C']
          const float* a = pr.att + h * d;                // [C']
          float* gs = g.src + (j * heads + h) * d;
#pragma omp simd
          for (int64_t q = 0; q < d; ++q) {
            gs[q] += de[h] * a[q] * leaky_derivative(xs[q] + xd[q], pr.slope);
          }
        }
      } else {
        for (int64_t h = 0; h < heads; ++h) {
          axpy(de[h] * pr.scale, s_dst + (i * heads + h) * d, g.src + (j * heads + h) * d, d);
        }
      }
    }
  }
}

template <bool kScaled>
void forward(const Problem& pr, Rule rule, float* probs, float* out) {
  switch (rule) {
    case Rule::kGat: forward_rows<Rule::kGat, kScaled>(pr, probs, out); break;
    case Rule::kGatV2: forward_rows<Rule::kGatV2, kScaled>(pr, probs, out); break;
    case Rule::kDot: forward_rows<Rule::kDot, kScaled>(pr, probs, out); break;
    case Rule::kLogits: forward_rows<Rule::kLogits, kScaled>(pr, probs, out); break;
  }
}

template <Rule R>
void backward(const Problem& pr, const float* probs, const float* gy, const Grads& g) {
  const bool score_grads = g.src || g.dst || g.att || g.edge || g.logits;
  const bool alpha_grads = score_grads || g.edge_scale;  // d alpha is needed
  Tensor dscore;  // [E, H]
  if (alpha_grads) dscore = Tensor::uninitialized({pr.n_edges, pr.heads});  // every position is written
  float* ds = alpha_grads ? dscore.data() : nullptr;
  const int64_t n_blocks = (pr.n + kRowBlock - 1) / kRowBlock;
  std::vector<float> att_partial(g.att ? n_blocks * pr.heads * pr.d : 0, 0.0f);
  float* att_acc = g.att ? att_partial.data() : nullptr;
  // The three passes over the same row blocks, in one parallel region (a GAT layer's step
  // opened one region per pass); each pass reads what the one before wrote.
  auto messages = [&](int64_t b) {
    const int64_t lo = b * kRowBlock, hi = std::min(pr.n, lo + kRowBlock);
    if (pr.edge_scale) {
      backward_messages<true>(pr, probs, gy, ds, g.values, g.edge_scale, lo, hi);
    } else {
      backward_messages<false>(pr, probs, gy, ds, g.values, nullptr, lo, hi);
    }
  };
  auto rows = [&](int64_t b) {
    const int64_t lo = b * kRowBlock, hi = std::min(pr.n, lo + kRowBlock);
    if (score_grads) backward_rows<R>(pr, probs, gy, ds, g, att_acc, lo, hi);
  };
  auto sources = [&](int64_t b) {
    const int64_t lo = b * kRowBlock, hi = std::min(pr.n, lo + kRowBlock);
    if (g.src) backward_sources<R>(pr, ds, g, lo, hi);
  };
  if (!score_grads) {
    parallel_for_phases(n_blocks, messages);
  } else if (!g.src) {
    parallel_for_phases(n_blocks, messages, rows);
  } else {
    parallel_for_phases(n_blocks, messages, rows, sources);
  }
  if (g.att) {  // per-block partials added in block order
    for (int64_t b = 0; b < n_blocks; ++b) {
      const float* part = att_partial.data() + b * pr.heads * pr.d;
      for (int64_t k = 0; k < pr.heads * pr.d; ++k) g.att[k] += part[k];
    }
  }
}

}  // namespace

Var sparse_attention(const Csr& graph, const SparseScores& scores, const Var& values,
                     const SparseAttentionOptions& options, Tensor* weights_out) {
  Problem pr = make_problem(graph, scores, values, options);
  Tensor mask;  // [E, H] dropout multipliers, kept for the backward
  if (pr.dropout) {
    mask = dropout_mask(pr);
    pr.mask = mask.data();
  }
  std::vector<Var> inputs{values};
  for (const Var* in : {&scores.src, &scores.dst, &scores.att, &scores.edge, &scores.logits, &graph.edge_scale()}) {
    if (in->defined()) inputs.push_back(*in);
  }
  bool recording = false;
  if (grad_enabled()) {
    for (const Var& in : inputs) recording = recording || in.requires_grad();
  }

  Tensor out = Tensor::uninitialized({pr.n, pr.heads, pr.c});  // [N, H, C], rows zeroed by forward_rows
  Tensor probs;  // [E, H], destination-major positions; every position is written
  if (recording || weights_out) probs = Tensor::uninitialized({pr.n_edges, pr.heads});
  float* probs_data = (recording || weights_out) ? probs.data() : nullptr;
  if (pr.edge_scale) {
    forward<true>(pr, scores.rule, probs_data, out.data());
  } else {
    forward<false>(pr, scores.rule, probs_data, out.data());
  }

  if (weights_out) {  // keyed by edge id
    Tensor weights = Tensor::uninitialized({pr.n_edges, pr.heads});  // [E, H], a permutation of probs
    const int64_t heads = pr.heads;
    parallel_for_blocks(pr.n_edges, kRowBlock * 16, [&](int64_t lo, int64_t hi) {
      for (int64_t p = lo; p < hi; ++p) {
        for (int64_t h = 0; h < heads; ++h) {
          weights[pr.edge_id[p] * heads + h] = probs[p * heads + h];
        }
      }
    });
    *weights_out = std::move(weights);
  }
  if (!recording) return Var(std::move(out), false);

  return Var::from_op(
      std::move(out), inputs,
      [graph, scores, values, options, probs = std::move(probs), mask = std::move(mask)](
          const Tensor&, const Tensor& gy) {
        Problem pr = make_problem(graph, scores, values, options);
        pr.mask = pr.dropout ? mask.data() : nullptr;
        Grads g;
        if (values.requires_grad()) g.values = values.grad_mut().data();
        auto grad_of = [](const Var& x) { return x.requires_grad() ? x.grad_mut().data() : nullptr; };
        g.src = grad_of(scores.src);
        g.dst = grad_of(scores.dst);
        g.att = grad_of(scores.att);
        g.edge = grad_of(scores.edge);
        g.logits = grad_of(scores.logits);
        g.edge_scale = grad_of(graph.edge_scale());
        switch (scores.rule) {
          case Rule::kGat: backward<Rule::kGat>(pr, probs.data(), gy.data(), g); break;
          case Rule::kGatV2: backward<Rule::kGatV2>(pr, probs.data(), gy.data(), g); break;
          case Rule::kDot: backward<Rule::kDot>(pr, probs.data(), gy.data(), g); break;
          case Rule::kLogits: backward<Rule::kLogits>(pr, probs.data(), gy.data(), g); break;
        }
      });
}

}  // namespace attend::ops
