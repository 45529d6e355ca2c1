#include "attend/bio/evoformer/head_projection.hpp"

#include <memory>
#include <vector>

#include "attend/core/error.hpp"
#include "attend/core/gemm.hpp"
#include "attend/core/parallel.hpp"

namespace attend::bio {

namespace {

constexpr int64_t kBatchGroup = 8;  // batch rows per work item and per weight-gradient partial

// Where batch row b's N activation rows lie in a [B, N, C] or [N, B, C] buffer.
struct RowLayout {
  int64_t batch = 0, n = 0, channels = 0;
  bool batch_second = false;
  int64_t offset(int64_t b) const { return batch_second ? b * channels : b * n * channels; }  // row (b, 0)
  int64_t stride() const { return batch_second ? batch * channels : channels; }               // row to row
};

// flat [N, H c] (row stride ld, + bias [H c] when not null) -> batch row b of heads [B, H, N, c].
void to_heads(const float* flat, int64_t ld, const float* bias, float* heads, int64_t b, int64_t h_count, int64_t n,
              int64_t c) {
  for (int64_t h = 0; h < h_count; ++h)
    for (int64_t i = 0; i < n; ++i) {
      float* __restrict hp = heads + ((b * h_count + h) * n + i) * c;
      const float* __restrict fp = flat + i * ld + h * c;
      if (bias == nullptr) {
        for (int64_t t = 0; t < c; ++t) hp[t] = fp[t];
      } else {
        const float* __restrict bp = bias + h * c;
        for (int64_t t = 0; t < c; ++t) hp[t] = fp[t] + bp[t];
      }
    }
}

// Batch row b of heads [B, H, N, c] -> flat [N, H c] (row stride ld).
void from_heads(const float* heads, float* flat, int64_t ld, int64_t b, int64_t h_count, int64_t n, int64_t c) {
  for (int64_t h = 0; h < h_count; ++h)
    for (int64_t i = 0; i < n; ++i) {
      const float* hp = heads + ((b * h_count + h) * n + i) * c;
      float* fp = flat + i * ld + h * c;
      for (int64_t t = 0; t < c; ++t) fp[t] = hp[t];
    }
}

// Rows [0, n) of a flat [N, width] block (row stride ld) set to zero.
void zero_columns(float* flat, int64_t ld, int64_t n, int64_t width) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t t = 0; t < width; ++t) flat[i * ld + t] = 0.0f;
}

// Per-group partials [n_groups, rows * cols + cols] of a weight and its bias, summed in group
// order into their gradients.
struct WeightPartials {
  int64_t rows, cols, n_groups;
  std::vector<float> data;
  WeightPartials(int64_t r, int64_t c, int64_t groups, bool on)
      : rows(r), cols(c), n_groups(groups), data(on ? static_cast<std::size_t>(groups * (r * c + c)) : 0, 0.0f) {}
  float* weight(int64_t group) { return data.data() + group * (rows * cols + cols); }
  float* bias(int64_t group) { return weight(group) + rows * cols; }
  // The partials summed in group order: [rows * cols + cols].
  std::vector<float> summed() const {
    const int64_t size = rows * cols + cols;
    std::vector<float> sum(static_cast<std::size_t>(size), 0.0f);
    for (int64_t g = 0; g < n_groups; ++g)
      for (int64_t e = 0; e < size; ++e) sum[e] += data[g * size + e];
    return sum;
  }
  // Columns [first, first + width) of the summed weight [rows, cols] and bias [cols] added
  // into w [rows, width] and b [width] (when they take gradients).
  void add_into(const std::vector<float>& sum, const Var& w, const Var& b, int64_t first, int64_t width) const {
    if (w.requires_grad()) {
      float* dw = w.grad_mut().data();
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t e = 0; e < width; ++e) dw[r * width + e] += sum[r * cols + first + e];
    }
    if (b.defined() && b.requires_grad()) {
      float* db = b.grad_mut().data();
      for (int64_t e = 0; e < width; ++e) db[e] += sum[rows * cols + first + e];
    }
  }
  void add_into(const Var& w, const Var& b) const { add_into(summed(), w, b, 0, cols); }
};

// The weights w_p [C, H c] side by side and transposed -> [P H c, C]; built per backward, so
// the parameters stay separate.
std::vector<float> transposed_side_by_side(const std::vector<Var>& weights) {
  const int64_t rows = weights[0].dim(0), hc = weights[0].dim(1), width = hc * static_cast<int64_t>(weights.size());
  std::vector<float> out(static_cast<std::size_t>(rows * width));
  for (std::size_t p = 0; p < weights.size(); ++p) {
    const float* w = weights[p].value().data();
    const int64_t first = static_cast<int64_t>(p) * hc;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t e = 0; e < hc; ++e) out[(first + e) * rows + r] = w[r * hc + e];
  }
  return out;
}

// w [rows, cols] -> w^T [cols, rows], once per backward: gemm's narrow products copy a
// transposed right-hand side on every call (per batch row and head here), a plain one never.
std::vector<float> transposed(const float* w, int64_t rows, int64_t cols) {
  std::vector<float> t(static_cast<std::size_t>(rows * cols));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) t[c * rows + r] = w[r * cols + c];
  return t;
}

bool needs_weight_grads(const Var& w, const Var& b) {
  return w.requires_grad() || (b.defined() && b.requires_grad());
}

// out[c] += sum over rows of m[r * ld + c], rows in order.
void add_column_sums(const float* m, int64_t rows, int64_t cols, int64_t ld, float* out) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) out[c] += m[r * ld + c];
}

}  // namespace

std::vector<Var> project_to_heads_jointly(const Var& x, const std::vector<Var>& weights,
                                          const std::vector<Var>& biases, int64_t n_heads, int batch_axis) {
  const Tensor& xv = x.value();
  ATTEND_CHECK(xv.rank() == 3 && (batch_axis == 0 || batch_axis == 1) && !weights.empty() &&
                   biases.size() == weights.size() && n_heads > 0,
               "project_to_heads expects x [B, N, C] or [N, B, C] and as many biases as weights, got "
                   << shape_to_string(xv.shape()) << ", " << weights.size() << " weights, " << biases.size()
                   << " biases, batch axis " << batch_axis);
  const Shape w_shape = weights[0].shape();
  for (std::size_t p = 0; p < weights.size(); ++p)
    ATTEND_CHECK(w_shape.size() == 2 && w_shape[0] == xv.dim(2) && w_shape[1] % n_heads == 0 &&
                     weights[p].shape() == w_shape &&
                     (!biases[p].defined() || biases[p].value().shape() == Shape{w_shape[1]}),
                 "project_to_heads expects every w [C, H c] and bias [H c] alike, C = "
                     << xv.dim(2) << ", H = " << n_heads << ", got w " << shape_to_string(weights[p].shape())
                     << (biases[p].defined() ? ", bias " + shape_to_string(biases[p].shape()) : std::string()));
  const RowLayout in{xv.dim(batch_axis), xv.dim(1 - batch_axis), xv.dim(2), batch_axis == 1};
  const int64_t n_proj = static_cast<int64_t>(weights.size());
  const int64_t hc = w_shape[1], c = hc / n_heads, k = in.channels, width = n_proj * hc;
  std::vector<Tensor> outs;  // P x [B, H, N, c], every element written
  for (int64_t p = 0; p < n_proj; ++p) outs.push_back(Tensor::uninitialized({in.batch, n_heads, in.n, c}));
  // The forward keeps one product per projection: its [N, H c] result stays in L2 until
  // copied into the heads layout (one [N, P H c] result did not, and measured slower).
  parallel_for_blocks(in.batch, kBatchGroup, [&](int64_t lo, int64_t hi) {
    std::vector<float> flat(static_cast<std::size_t>(in.n * hc));  // [N, H c]
    for (int64_t b = lo; b < hi; ++b)
      for (int64_t p = 0; p < n_proj; ++p) {
        gemm_one_block(false, false, in.n, hc, k, 1.0f, xv.data() + in.offset(b), in.stride(),
                       weights[p].value().data(), hc, 0.0f, flat.data(), hc);
        to_heads(flat.data(), hc, biases[p].defined() ? biases[p].value().data() : nullptr, outs[p].data(), b,
                 n_heads, in.n, c);
      }
  });

  // Results 0 .. P-2 record no work of their own; the last one's backward reads their
  // gradients (they are its inputs, so it runs after every consumer of theirs and before
  // them) and sends the joint gradient to x, the weights and the biases.
  std::vector<Var> results;
  auto joint_ran = std::make_shared<bool>(false);
  for (int64_t p = 0; p + 1 < n_proj; ++p)
    results.push_back(Var::from_op(std::move(outs[p]), {x, weights[p], biases[p]}, [joint_ran](const Tensor&,
                                                                                                 const Tensor&) {
      ATTEND_CHECK(*joint_ran, "project_to_heads_jointly: a result reached the backward without the last one, "
                               "which carries the joint backward; consume the last result with the others");
    }));
  std::vector<Var> inputs = results;
  inputs.push_back(x);
  inputs.insert(inputs.end(), weights.begin(), weights.end());
  inputs.insert(inputs.end(), biases.begin(), biases.end());
  const int64_t n_groups = (in.batch + kBatchGroup - 1) / kBatchGroup;
  std::vector<Var> others = results;
  results.push_back(Var::from_op(std::move(outs.back()), inputs, [x, weights, biases, others, joint_ran, in, hc, c, k,
                                                                 n_heads, n_proj, width,
                                                                 n_groups](const Tensor&, const Tensor& gy) {
    *joint_ran = true;
    std::vector<const float*> grads;  // P x [B, H, N, c], null where a result got no gradient
    for (const Var& r : others) grads.push_back(r.has_grad() ? r.grad().data() : nullptr);
    grads.push_back(gy.data());
    const float* xp = x.value().data();
    float* dx = x.requires_grad() ? x.grad_mut().data() : nullptr;
    const std::vector<float> wt = dx ? transposed_side_by_side(weights) : std::vector<float>();  // [P H c, C]
    bool weight_grads = false;
    for (int64_t p = 0; p < n_proj; ++p) weight_grads = weight_grads || needs_weight_grads(weights[p], biases[p]);
    WeightPartials parts(k, width, n_groups, weight_grads);
    parallel_for_blocks(in.batch, kBatchGroup, [&](int64_t lo, int64_t hi) {
      std::vector<float> dflat(static_cast<std::size_t>(in.n * width));  // [N, P H c]
      for (int64_t b = lo; b < hi; ++b) {
        for (int64_t p = 0; p < n_proj; ++p) {
          if (grads[p])
            from_heads(grads[p], dflat.data() + p * hc, width, b, n_heads, in.n, c);
          else
            zero_columns(dflat.data() + p * hc, width, in.n, hc);
        }
        if (dx)
          gemm_one_block(false, false, in.n, k, width, 1.0f, dflat.data(), width, wt.data(), k, 1.0f,
                         dx + in.offset(b), in.stride());
        if (!parts.data.empty()) {
          const int64_t g = lo / kBatchGroup;
          gemm_one_block(true, false, k, width, in.n, 1.0f, xp + in.offset(b), in.stride(), dflat.data(), width,
                         1.0f, parts.weight(g), width);
          add_column_sums(dflat.data(), in.n, width, width, parts.bias(g));
        }
      }
    });
    if (!parts.data.empty()) {
      const std::vector<float> sum = parts.summed();  // [C, P H c] and [P H c]
      for (int64_t p = 0; p < n_proj; ++p) parts.add_into(sum, weights[p], biases[p], p * hc, hc);
    }
  }));
  return results;
}

Var project_to_heads(const Var& x, const Var& w, const Var& bias, int64_t n_heads, int batch_axis) {
  return project_to_heads_jointly(x, {w}, {bias}, n_heads, batch_axis)[0];
}

Var project_from_heads(const Var& o, const Var& w, const Var& bias, int batch_axis) {
  const Tensor& ov = o.value();
  const Tensor& wv = w.value();
  ATTEND_CHECK(ov.rank() == 4 && (batch_axis == 0 || batch_axis == 1) && wv.rank() == 2 &&
                   wv.dim(0) == ov.dim(1) * ov.dim(3) && (!bias.defined() || bias.value().shape() == Shape{wv.dim(1)}),
               "project_from_heads expects o [B, H, N, c], w [H c, C], bias [C], got "
                   << shape_to_string(ov.shape()) << ", " << shape_to_string(wv.shape()) << ", batch axis "
                   << batch_axis);
  const int64_t batch = ov.dim(0), n_heads = ov.dim(1), n = ov.dim(2), c = ov.dim(3), hc = n_heads * c;
  const RowLayout outl{batch, n, wv.dim(1), batch_axis == 1};
  const int64_t cout = outl.channels;
  Tensor y = Tensor::uninitialized(batch_axis == 0 ? Shape{batch, n, cout} : Shape{n, batch, cout});
  const float* bp = bias.defined() ? bias.value().data() : nullptr;
  parallel_for_blocks(batch, kBatchGroup, [&](int64_t lo, int64_t hi) {
    std::vector<float> flat(static_cast<std::size_t>(n * hc));  // [N, H c]
    for (int64_t b = lo; b < hi; ++b) {
      from_heads(ov.data(), flat.data(), hc, b, n_heads, n, c);
      float* yb = y.data() + outl.offset(b);
      gemm_one_block(false, false, n, cout, hc, 1.0f, flat.data(), hc, wv.data(), cout, 0.0f, yb, outl.stride());
      if (bp)
        for (int64_t i = 0; i < n; ++i)
          for (int64_t e = 0; e < cout; ++e) yb[i * outl.stride() + e] += bp[e];
    }
  });
  const int64_t n_groups = (batch + kBatchGroup - 1) / kBatchGroup;
  return Var::from_op(std::move(y), {o, w, bias}, [o, w, bias, outl, n_heads, n, c, hc, cout, n_groups](
                                                      const Tensor&, const Tensor& gy) {
    const float* op = o.value().data();
    const float* wp = w.value().data();
    float* d_o = o.requires_grad() ? o.grad_mut().data() : nullptr;
    const std::vector<float> wt = d_o ? transposed(wp, hc, cout) : std::vector<float>();  // [C, H c]
    WeightPartials parts(hc, cout, n_groups, needs_weight_grads(w, bias));
    // Per batch row b, with dy(b) = gy's rows [N, C] read in place and head h's rows
    // h c .. (h + 1) c of w as w_h [c, C]: d_o(b, h) [N, c] += dy(b) w_h^T (columns h c ..
    // (h + 1) c of w^T) and
    // dw_h [c, C] += o(b, h)^T dy(b), straight from and into the heads layout.
    parallel_for_blocks(outl.batch, kBatchGroup, [&](int64_t lo, int64_t hi) {
      for (int64_t b = lo; b < hi; ++b) {
        const float* dy = gy.data() + outl.offset(b);
        const int64_t ld = outl.stride();
        for (int64_t h = 0; h < n_heads; ++h) {
          const int64_t head_rows = (b * n_heads + h) * n * c;  // o(b, h) [N, c]
          if (d_o) gemm_one_block(false, false, n, c, cout, 1.0f, dy, ld, wt.data() + h * c, hc, 1.0f, d_o + head_rows, c);
          if (!parts.data.empty()) {
            const int64_t g = lo / kBatchGroup;
            gemm_one_block(true, false, c, cout, n, 1.0f, op + head_rows, c, dy, ld, 1.0f,
                           parts.weight(g) + h * c * cout, cout);
          }
        }
        if (!parts.data.empty()) add_column_sums(dy, n, cout, ld, parts.bias(lo / kBatchGroup));
      }
    });
    if (!parts.data.empty()) parts.add_into(w, bias);
  });
}

}  // namespace attend::bio
