#include "attend/core/ops/slot_matmul.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

#include "attend/core/error.hpp"
#include "attend/core/parallel.hpp"

namespace attend::ops {

namespace {

constexpr int64_t kSlotBlock = 256;

/// y[c] += a * x[c] for c in [0, n).
inline void axpy(float a, const float* x, float* y, int64_t n) {
#pragma omp simd
  for (int64_t c = 0; c < n; ++c) y[c] += a * x[c];
}

constexpr int64_t kLanes = 16;  ///< columns one mix_rows call keeps in registers

/// out[q] = sum_k mix[k] rows[k * stride + q] for q < kWidth * repeat, k in [0, b) in order.
/// The sums live in a local array (registers for kWidth = kLanes), not in `out`: adding into
/// `out` once per k made every step wait for the previous step's store.
template <int64_t kWidth>
inline void mix_rows(const float* mix, const float* rows, int64_t b, int64_t stride, float* out,
                     int64_t repeat = 1) {
  for (int64_t part = 0; part < repeat; ++part) {
    float acc[kWidth] = {};
    for (int64_t k = 0; k < b; ++k) {
      const float m = mix[k];
      const float* src = rows + k * stride + part * kWidth;
#pragma omp simd
      for (int64_t q = 0; q < kWidth; ++q) acc[q] += m * src[q];
    }
    for (int64_t q = 0; q < kWidth; ++q) out[part * kWidth + q] = acc[q];
  }
}

/// Checks shapes and returns C, the width of one relation's block of w.
int64_t block_width(const RelationSlots& slots, int64_t rows, int64_t cols, const Tensor& w) {
  ATTEND_CHECK(rows == slots.num_nodes, "slot_matmul: x has " << rows << " rows, the slots "
                                                              << slots.num_nodes << " nodes");
  ATTEND_CHECK(w.rank() == 2 && w.dim(0) == cols && w.dim(1) % slots.num_relations == 0,
               "slot_matmul: w of shape " << shape_to_string(w.shape()) << ", expected [" << cols
                                          << ", R * C] with R = " << slots.num_relations);
  return w.dim(1) / slots.num_relations;
}

/// Source of the values of row `i` of x: dense row or sparse (index, value) pairs.
struct DenseRows {
  const float* x;
  int64_t f;
  template <class Fn>
  void for_each(int64_t i, Fn&& fn) const {
    const float* row = x + i * f;
    for (int64_t k = 0; k < f; ++k) fn(k, row[k]);
  }
};

struct SparseRows {
  const SparseMatrix* x;
  template <class Fn>
  void for_each(int64_t i, Fn&& fn) const {
    const auto& indptr = x->indptr();
    const auto& indices = x->indices();
    const auto& values = x->values();
    for (int64_t p = indptr[i]; p < indptr[i + 1]; ++p) fn(indices[p], values[p]);
  }
};

template <class Rows>
Tensor forward(const Rows& rows, const float* w, const RelationSlots& slots, int64_t c) {
  const int64_t rc = slots.num_relations * c;
  Tensor out({slots.size(), c});  // [S, C]
  float* o = out.data();
  parallel_for_blocks(slots.size(), kSlotBlock, [&](int64_t lo, int64_t hi) {
    for (int64_t s = lo; s < hi; ++s) {
      const float* block = w + slots.relation[s] * c;
      rows.for_each(slots.node[s], [&](int64_t k, float v) { axpy(v, block + k * rc, o + s * c, c); });
    }
  });
  return out;
}

/// dw[:, block r] += sum over the slots of relation r (in order) of x[node]^T dy[slot].
template <class Rows>
void backward_weight(const Rows& rows, const float* gy, const RelationSlots& slots, int64_t c,
                     float* gw) {
  const int64_t rc = slots.num_relations * c;
  parallel_for(0, slots.num_relations, [&](int64_t r) {
    float* block = gw + r * c;
    for (int64_t p = slots.relation_indptr[r]; p < slots.relation_indptr[r + 1]; ++p) {
      const int64_t s = slots.by_relation[p];
      rows.for_each(slots.node[s], [&](int64_t k, float v) { axpy(v, gy + s * c, block + k * rc, c); });
    }
  });
}

}  // namespace

RelationSlots RelationSlots::from_pairs(int64_t num_nodes, int64_t num_relations,
                                        const std::vector<int64_t>& nodes,
                                        const std::vector<int64_t>& relations) {
  ATTEND_CHECK(nodes.size() == relations.size(), "RelationSlots: " << nodes.size() << " nodes, "
                                                                   << relations.size() << " relations");
  ATTEND_CHECK(num_nodes >= 0 && num_relations > 0,
               "RelationSlots: " << num_nodes << " nodes, " << num_relations << " relations");
  std::vector<int64_t> keys(nodes.size());  // node * R + relation
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    ATTEND_CHECK(nodes[k] >= 0 && nodes[k] < num_nodes && relations[k] >= 0 &&
                     relations[k] < num_relations,
                 "RelationSlots: pair (" << nodes[k] << ", " << relations[k] << ") outside "
                                         << num_nodes << " nodes x " << num_relations << " relations");
    keys[k] = nodes[k] * num_relations + relations[k];
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  RelationSlots s;
  s.num_nodes = num_nodes;
  s.num_relations = num_relations;
  s.node_indptr.assign(static_cast<std::size_t>(num_nodes) + 1, 0);
  s.relation_indptr.assign(static_cast<std::size_t>(num_relations) + 1, 0);
  for (int64_t key : keys) {
    s.node.push_back(key / num_relations);
    s.relation.push_back(key % num_relations);
    ++s.node_indptr[s.node.back() + 1];
    ++s.relation_indptr[s.relation.back() + 1];
  }
  std::partial_sum(s.node_indptr.begin(), s.node_indptr.end(), s.node_indptr.begin());
  std::partial_sum(s.relation_indptr.begin(), s.relation_indptr.end(), s.relation_indptr.begin());
  s.by_relation.resize(keys.size());
  std::vector<int64_t> next(s.relation_indptr.begin(), s.relation_indptr.end() - 1);
  for (int64_t id = 0; id < s.size(); ++id) s.by_relation[next[s.relation[id]]++] = id;
  return s;
}

int64_t RelationSlots::find(int64_t n, int64_t r) const {
  if (n < 0 || n >= num_nodes) return -1;
  const auto first = relation.begin() + node_indptr[n], last = relation.begin() + node_indptr[n + 1];
  const auto it = std::lower_bound(first, last, r);
  return it != last && *it == r ? static_cast<int64_t>(it - relation.begin()) : -1;
}

Var slot_matmul(const Var& x, const Var& w, std::shared_ptr<const RelationSlots> slots) {
  ATTEND_CHECK(slots != nullptr, "slot_matmul without slots");
  const Tensor& xv = x.value();
  ATTEND_CHECK(xv.rank() == 2, "slot_matmul: x of shape " << shape_to_string(xv.shape())
                                                          << ", expected [N, F]");
  const int64_t f = xv.dim(1);
  const int64_t c = block_width(*slots, xv.dim(0), f, w.value());
  Tensor out = forward(DenseRows{xv.data(), f}, w.value().data(), *slots, c);
  return Var::from_op(std::move(out), {x, w}, [x, w, slots, f, c](const Tensor&, const Tensor& gy) {
    const RelationSlots& sl = *slots;
    const int64_t rc = sl.num_relations * c;
    if (x.requires_grad()) {  // dx[node] += dy[slot] W_r^T, each node's slots in order
      const float* wv = w.value().data();
      float* gx = x.grad_mut().data();
      parallel_for_blocks(sl.num_nodes, kSlotBlock, [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i) {
          for (int64_t s = sl.node_indptr[i]; s < sl.node_indptr[i + 1]; ++s) {
            const float* g = gy.data() + s * c;                // [C]
            const float* block = wv + sl.relation[s] * c;      // W_r rows, stride R * C
            for (int64_t k = 0; k < f; ++k) {
              float acc = 0.0f;
#pragma omp simd reduction(+ : acc)
              for (int64_t q = 0; q < c; ++q) acc += g[q] * block[k * rc + q];
              gx[i * f + k] += acc;
            }
          }
        }
      });
    }
    if (w.requires_grad()) {
      backward_weight(DenseRows{x.value().data(), f}, gy.data(), sl, c, w.grad_mut().data());
    }
  });
}

Var slot_matmul(std::shared_ptr<const SparseMatrix> x, const Var& w,
                std::shared_ptr<const RelationSlots> slots) {
  ATTEND_CHECK(x != nullptr && slots != nullptr, "slot_matmul of a null matrix or slot set");
  const int64_t c = block_width(*slots, x->rows(), x->cols(), w.value());
  Tensor out = forward(SparseRows{x.get()}, w.value().data(), *slots, c);
  return Var::from_op(std::move(out), {w}, [x, w, slots, c](const Tensor&, const Tensor& gy) {
    backward_weight(SparseRows{x.get()}, gy.data(), *slots, c, w.grad_mut().data());
  });
}

Var slot_basis_combine(const Var& h, const Var& comp, std::shared_ptr<const RelationSlots> slots) {
  ATTEND_CHECK(slots != nullptr, "slot_basis_combine without slots");
  const Tensor& hv = h.value();
  const Tensor& cv = comp.value();
  ATTEND_CHECK(cv.rank() == 2 && cv.dim(0) == slots->num_relations && cv.dim(1) > 0,
               "slot_basis_combine: comp of shape " << shape_to_string(cv.shape()) << ", expected [R, B] with R = "
                                                    << slots->num_relations);
  const int64_t b = cv.dim(1);
  ATTEND_CHECK(hv.rank() == 2 && hv.dim(0) == slots->num_nodes && hv.dim(1) % b == 0,
               "slot_basis_combine: h of shape " << shape_to_string(hv.shape()) << ", expected [" << slots->num_nodes
                                                 << ", B * C] with B = " << b);
  const int64_t c = hv.dim(1) / b;
  const RelationSlots& sl = *slots;
  Tensor out({sl.size(), c});  // [S, C]
  {
    const float* hd = hv.data();
    const float* cd = cv.data();
    float* o = out.data();
    parallel_for_blocks(sl.size(), kSlotBlock, [&](int64_t lo, int64_t hi) {
      for (int64_t s = lo; s < hi; ++s) {
        const float* row = hd + sl.node[s] * b * c;  // [B, C]
        const float* mix = cd + sl.relation[s] * b;  // [B]
        for (int64_t q = 0; q < c; q += kLanes) {
          if (c - q >= kLanes) {
            mix_rows<kLanes>(mix, row + q, b, c, o + s * c + q);
          } else {
            mix_rows<1>(mix, row + q, b, c, o + s * c + q, c - q);
          }
        }
      }
    });
  }
  return Var::from_op(std::move(out), {h, comp}, [h, comp, slots, b, c](const Tensor&, const Tensor& gy) {
    const RelationSlots& sl = *slots;
    const float* g = gy.data();  // [S, C]
    if (h.requires_grad()) {  // dh[node, block k] += comp[r, k] dy[slot], each node's slots in order
      const float* cd = comp.value().data();
      float* gh = h.grad_mut().data();
      parallel_for_blocks(sl.num_nodes, kSlotBlock, [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i) {
          for (int64_t s = sl.node_indptr[i]; s < sl.node_indptr[i + 1]; ++s) {
            const float* mix = cd + sl.relation[s] * b;
            for (int64_t k = 0; k < b; ++k) axpy(mix[k], g + s * c, gh + (i * b + k) * c, c);
          }
        }
      });
    }
    if (comp.requires_grad()) {  // dcomp[r, k] += sum over r's slots of dy[slot] . h[node, block k]
      // Each relation's slots (in by_relation order) are cut into chunks of kSlotBlock, so a
      // relation holding most slots is still split; a chunk sums dy[slot] * h[node] elementwise
      // into its own [B, C] (vector FMAs, no horizontal sum per slot), then each relation adds
      // its chunks and columns in double, in order.
      std::vector<int64_t> chunk_start, chunk_end;  // ranges of by_relation
      for (int64_t r = 0; r < sl.num_relations; ++r) {
        for (int64_t p = sl.relation_indptr[r]; p < sl.relation_indptr[r + 1]; p += kSlotBlock) {
          chunk_start.push_back(p);
          chunk_end.push_back(std::min(p + kSlotBlock, sl.relation_indptr[r + 1]));
        }
      }
      const int64_t n_chunks = static_cast<int64_t>(chunk_start.size());
      Tensor partial({n_chunks, b * c});  // [chunks, B * C]
      const float* hd = h.value().data();
      float* pd = partial.data();
      parallel_for(0, n_chunks, [&](int64_t j) {
        float* acc = pd + j * b * c;
        for (int64_t p = chunk_start[j]; p < chunk_end[j]; ++p) {
          const int64_t s = sl.by_relation[p];
          const float* row = hd + sl.node[s] * b * c;  // [B, C]
          const float* gs = g + s * c;                 // [C]
          for (int64_t k = 0; k < b; ++k) {
#pragma omp simd
            for (int64_t q = 0; q < c; ++q) acc[k * c + q] += gs[q] * row[k * c + q];
          }
        }
      });
      float* gc = comp.grad_mut().data();
      int64_t j = 0;
      for (int64_t r = 0; r < sl.num_relations; ++r) {
        std::vector<double> total(static_cast<std::size_t>(b), 0.0);
        for (; j < n_chunks && chunk_start[j] < sl.relation_indptr[r + 1]; ++j) {
          for (int64_t k = 0; k < b; ++k) {
            for (int64_t q = 0; q < c; ++q) total[k] += pd[(j * b + k) * c + q];
          }
        }
        for (int64_t k = 0; k < b; ++k) gc[r * b + k] += static_cast<float>(total[k]);
      }
    }
  });
}

}  // namespace attend::ops
