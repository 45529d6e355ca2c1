#pragma once
// Plain double-precision references of the Evoformer algorithms (AF2 supplement, Alg. 6-15),
// written with loops straight from the paper, and the checks every Evoformer test shares.
// Parameters are read by name (the modules' dotted paths) from a map of values.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "attend/core/module.hpp"
#include "attend/core/registry.hpp"
#include "attend/bio/builtin_layers.hpp"
#include "attend/core/tensor.hpp"
#include "grad_check.hpp"

namespace attend::evoref {

using Vec = std::vector<double>;

/// Parameter values by dotted path, looked up under a prefix.
struct Params {
  const std::map<std::string, Tensor>* values;
  std::string prefix;
  Vec operator()(const std::string& name) const {
    const Tensor& t = values->at(prefix + name);
    return Vec(t.begin(), t.end());
  }
  Params sub(const std::string& child) const { return Params{values, prefix + child + "."}; }
};

inline std::map<std::string, Tensor> values_of(const Module& module) {
  std::map<std::string, Tensor> out;
  for (const auto& [name, v] : module.named_parameters()) out[name] = v.value();
  return out;
}

/// Every parameter set to uniform values in [-scale, scale) (so zero-initialised gates and
/// output layers cannot hide a wiring mistake).
inline void randomize_parameters(const Module& module, uint64_t seed, float scale = 0.5f) {
  for (const auto& [name, v] : module.named_parameters()) {
    Var p = v;
    p.value() = attend::testing::random_tensor(p.shape(), seed++, -scale, scale);
  }
}

inline Vec to_vec(const Tensor& t) { return Vec(t.begin(), t.end()); }

/// Layer norm over rows of c values (biased variance, eps 1e-5).
inline Vec layer_norm(const Vec& x, int64_t c, const Params& p) {
  const Vec w = p("weight"), b = p("bias");
  Vec y(x.size());
  for (std::size_t r = 0; r < x.size() / c; ++r) {
    double mean = 0, var = 0;
    for (int64_t t = 0; t < c; ++t) mean += x[r * c + t];
    mean /= c;
    for (int64_t t = 0; t < c; ++t) var += (x[r * c + t] - mean) * (x[r * c + t] - mean);
    var /= c;
    for (int64_t t = 0; t < c; ++t) y[r * c + t] = (x[r * c + t] - mean) / std::sqrt(var + 1e-5) * w[t] + b[t];
  }
  return y;
}

/// x [rows, in] W [in, out] (+ bias when the linear has one).
inline Vec linear(const Vec& x, int64_t in, const Params& p, bool bias) {
  const Vec w = p("weight");
  const int64_t out = static_cast<int64_t>(w.size()) / in, rows = static_cast<int64_t>(x.size()) / in;
  const Vec b = bias ? p("bias") : Vec(out, 0.0);
  Vec y(rows * out);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t o = 0; o < out; ++o) {
      double s = b[o];
      for (int64_t i = 0; i < in; ++i) s += x[r * in + i] * w[i * out + o];
      y[r * out + o] = s;
    }
  return y;
}

inline double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

/// Gated multi-head attention (the "mha" child) on x [B, N, c], with bias(b, h, i, j).
inline Vec gated_attention(const Vec& x, int64_t batch, int64_t n, int64_t c, int64_t heads, int64_t ch,
                           const Params& p, const std::function<double(int64_t, int64_t, int64_t, int64_t)>& bias) {
  const Vec q = linear(x, c, p.sub("linear_q"), false), k = linear(x, c, p.sub("linear_k"), false),
            v = linear(x, c, p.sub("linear_v"), false), g = linear(x, c, p.sub("linear_g"), true);
  const int64_t hc = heads * ch;
  Vec o(batch * n * hc, 0.0);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t i = 0; i < n; ++i) {
        Vec s(n);
        double mx = -1e300, sum = 0;
        for (int64_t j = 0; j < n; ++j) {
          double dot = 0;
          for (int64_t t = 0; t < ch; ++t) dot += q[(b * n + i) * hc + h * ch + t] * k[(b * n + j) * hc + h * ch + t];
          s[j] = dot / std::sqrt(double(ch)) + bias(b, h, i, j);
          mx = std::max(mx, s[j]);
        }
        for (double& e : s) sum += (e = std::exp(e - mx));
        for (int64_t t = 0; t < ch; ++t) {
          double acc = 0;
          for (int64_t j = 0; j < n; ++j) acc += s[j] / sum * v[(b * n + j) * hc + h * ch + t];
          const int64_t at = (b * n + i) * hc + h * ch + t;
          o[at] = sigmoid(g[at]) * acc;
        }
      }
  return linear(o, hc, p.sub("linear_o"), true);
}

/// [A, B, C] -> [B, A, C].
inline Vec transpose01(const Vec& x, int64_t a, int64_t b, int64_t c) {
  Vec y(x.size());
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < b; ++j)
      for (int64_t t = 0; t < c; ++t) y[(j * a + i) * c + t] = x[(i * b + j) * c + t];
  return y;
}

// AF2 Alg. 7: m [S, N, c_m], z [N, N, c_z].
inline Vec msa_row_attention(const Vec& m, const Vec& z, int64_t s, int64_t n, int64_t cm, int64_t cz,
                             int64_t heads, int64_t ch, const Params& p) {
  const Vec x = layer_norm(m, cm, p.sub("layer_norm_m"));
  const Vec bz = linear(layer_norm(z, cz, p.sub("layer_norm_z")), cz, p.sub("linear_z"), false);  // [N, N, H]
  return gated_attention(x, s, n, cm, heads, ch, p.sub("mha"),
                         [&](int64_t, int64_t h, int64_t i, int64_t j) { return bz[(i * n + j) * heads + h]; });
}

// AF2 Alg. 8: attention over sequences s for each residue i.
inline Vec msa_column_attention(const Vec& m, int64_t s, int64_t n, int64_t cm, int64_t heads, int64_t ch,
                                const Params& p) {
  const Vec x = layer_norm(transpose01(m, s, n, cm), cm, p.sub("layer_norm_m"));  // [N, S, c_m]
  const Vec o = gated_attention(x, n, s, cm, heads, ch, p.sub("mha"), [](int64_t, int64_t, int64_t, int64_t) { return 0.0; });
  return transpose01(o, n, s, cm);
}

// AF2 Alg. 9 and 15.
inline Vec transition(const Vec& x, int64_t c, const Params& p) {
  Vec a = linear(layer_norm(x, c, p.sub("layer_norm")), c, p.sub("linear_1"), true);
  for (double& e : a) e = std::max(e, 0.0);
  return linear(a, static_cast<int64_t>(a.size() / (x.size() / c)), p.sub("linear_2"), true);
}

// AF2 Alg. 10: m [S, N, c_m] -> [N, N, c_z].
inline Vec outer_product_mean(const Vec& m, int64_t s, int64_t n, int64_t cm, int64_t c, const Params& p) {
  const Vec x = layer_norm(m, cm, p.sub("layer_norm"));
  const Vec a = linear(x, cm, p.sub("linear_a"), true), b = linear(x, cm, p.sub("linear_b"), true);
  Vec o(n * n * c * c, 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t c1 = 0; c1 < c; ++c1)
        for (int64_t c2 = 0; c2 < c; ++c2) {
          double acc = 0;
          for (int64_t r = 0; r < s; ++r) acc += a[(r * n + i) * c + c1] * b[(r * n + j) * c + c2];
          o[((i * n + j) * c + c1) * c + c2] = acc / s;
        }
  return linear(o, c * c, p.sub("linear_out"), true);
}

// AF2 Alg. 11 (outgoing) and 12 (incoming): z [N, N, c_z].
inline Vec triangle_multiplication(const Vec& z, int64_t n, int64_t cz, int64_t c, bool outgoing, const Params& p) {
  const Vec zn = layer_norm(z, cz, p.sub("layer_norm_in"));
  const Vec ap = linear(zn, cz, p.sub("linear_a_p"), true), ag = linear(zn, cz, p.sub("linear_a_g"), true);
  const Vec bp = linear(zn, cz, p.sub("linear_b_p"), true), bg = linear(zn, cz, p.sub("linear_b_g"), true);
  const Vec g = linear(zn, cz, p.sub("linear_g"), true);
  auto a = [&](int64_t i, int64_t j, int64_t t) { return sigmoid(ag[(i * n + j) * c + t]) * ap[(i * n + j) * c + t]; };
  auto b = [&](int64_t i, int64_t j, int64_t t) { return sigmoid(bg[(i * n + j) * c + t]) * bp[(i * n + j) * c + t]; };
  Vec x(n * n * c, 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t t = 0; t < c; ++t)
        for (int64_t k = 0; k < n; ++k)
          x[(i * n + j) * c + t] += outgoing ? a(i, k, t) * b(j, k, t) : a(k, i, t) * b(k, j, t);
  Vec out = linear(layer_norm(x, c, p.sub("layer_norm_out")), c, p.sub("linear_z"), true);
  for (std::size_t e = 0; e < out.size(); ++e) out[e] *= sigmoid(g[e]);
  return out;
}

// AF2 Alg. 13 (starting node) and 14 (ending node), each written out as in the paper.
inline Vec triangle_attention(const Vec& z, int64_t n, int64_t cz, int64_t heads, int64_t ch, bool starting,
                              const Params& p) {
  const Vec zn = layer_norm(z, cz, p.sub("layer_norm"));
  const Params mha = p.sub("mha");
  const Vec q = linear(zn, cz, mha.sub("linear_q"), false), k = linear(zn, cz, mha.sub("linear_k"), false),
            v = linear(zn, cz, mha.sub("linear_v"), false), g = linear(zn, cz, mha.sub("linear_g"), true);
  const Vec bb = linear(zn, cz, p.sub("linear_b"), false);  // [N, N, H]
  const int64_t hc = heads * ch;
  auto at = [&](int64_t i, int64_t j) { return (i * n + j) * hc; };
  Vec o(n * n * hc, 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t h = 0; h < heads; ++h) {
        Vec s(n);
        double mx = -1e300, sum = 0;
        for (int64_t kk = 0; kk < n; ++kk) {
          double dot = 0;
          // starting: q_ij . k_ik + b_jk; ending: q_ij . k_kj + b_ki
          const int64_t key = starting ? at(i, kk) : at(kk, j);
          for (int64_t t = 0; t < ch; ++t) dot += q[at(i, j) + h * ch + t] * k[key + h * ch + t];
          s[kk] = dot / std::sqrt(double(ch)) + (starting ? bb[(j * n + kk) * heads + h] : bb[(kk * n + i) * heads + h]);
          mx = std::max(mx, s[kk]);
        }
        for (double& e : s) sum += (e = std::exp(e - mx));
        for (int64_t t = 0; t < ch; ++t) {
          double acc = 0;
          for (int64_t kk = 0; kk < n; ++kk) acc += s[kk] / sum * v[(starting ? at(i, kk) : at(kk, j)) + h * ch + t];
          o[at(i, j) + h * ch + t] = sigmoid(g[at(i, j) + h * ch + t]) * acc;
        }
      }
  return linear(o, hc, mha.sub("linear_o"), true);
}

/// max |a - b| / (1 + |b|) between a float tensor and a double reference.
inline double max_rel_error(const Tensor& a, const Vec& b) {
  REQUIRE(static_cast<std::size_t>(a.numel()) == b.size());
  double worst = 0;
  for (std::size_t i = 0; i < b.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]) / (1.0 + std::abs(b[i])));
  return worst;
}

/// Gradient check options for compositions with layer norms in float32.
inline attend::testing::GradCheckOptions evo_grad_options() {
  attend::testing::GradCheckOptions o;
  o.eps = 5e-3f;
  o.rtol = 3e-2f;
  o.atol = 3e-3f;
  o.max_checks = 24;
  return o;
}

/// One Evoformer module under test: how to build it (with a chunk size; ignored by modules
/// without attention), run it, and compute its reference output.
struct ModuleCase {
  std::function<std::unique_ptr<Module>(int64_t chunk_size)> make;
  std::function<Var(const Module&, const std::vector<Var>&)> run;
  std::function<Vec(const std::map<std::string, Tensor>&, const std::vector<Tensor>&)> reference;
  std::vector<Shape> input_shapes;
};

inline std::vector<Tensor> random_inputs(const std::vector<Shape>& shapes, uint64_t seed) {
  std::vector<Tensor> out;
  for (const Shape& s : shapes) out.push_back(attend::testing::random_tensor(s, seed++));
  return out;
}

inline std::vector<Var> as_vars(const std::vector<Tensor>& values, bool requires_grad) {
  std::vector<Var> out;
  for (const Tensor& t : values) out.emplace_back(t, requires_grad);
  return out;
}

/// Forward against the double reference, all parameters random.
inline void check_forward(const ModuleCase& mc, double tolerance = 2e-5) {
  auto module = mc.make(0);
  randomize_parameters(*module, 77);
  const auto inputs = random_inputs(mc.input_shapes, 5);
  const Var out = mc.run(*module, as_vars(inputs, false));
  const Vec expected = mc.reference(values_of(*module), inputs);
  CHECK(max_rel_error(out.value(), expected) < tolerance);
}

/// Finite differences for the inputs and for every parameter.
inline void check_module_grads(const ModuleCase& mc, int param_checks = 12) {
  auto module = mc.make(0);
  randomize_parameters(*module, 91);
  const auto inputs = random_inputs(mc.input_shapes, 7);
  const auto opts = evo_grad_options();
  const auto on_inputs = attend::testing::check_gradients(
      [&](const std::vector<Var>& xs) { return mc.run(*module, xs); }, inputs, opts);
  INFO(on_inputs.report);
  CHECK(on_inputs.ok);
  const auto fixed = as_vars(inputs, false);
  auto param_opts = opts;
  param_opts.max_checks = param_checks;  // per parameter tensor
  const auto on_params =
      attend::testing::check_module_gradients(*module, [&] { return mc.run(*module, fixed); }, param_opts);
  INFO(on_params.report);
  CHECK(on_params.ok);
}

/// Output and every gradient (inputs and parameters) after one backward with a random seed.
struct RunResult {
  Tensor out;
  std::vector<Tensor> grads;
};

inline RunResult run_with_grads(const ModuleCase& mc, const Module& module, const std::vector<Shape>& shapes) {
  for (const auto& [name, p] : module.named_parameters()) p.zero_grad();
  const auto xs = as_vars(random_inputs(shapes, 11), true);
  Var out = mc.run(module, xs);
  out.backward(attend::testing::random_tensor(out.shape(), 99));
  RunResult r{out.value(), {}};
  for (const Var& x : xs) r.grads.push_back(x.grad());
  for (const auto& [name, p] : module.named_parameters()) r.grads.push_back(p.grad());
  return r;
}

inline void require_bitwise_equal(const RunResult& a, const RunResult& b) {
  CHECK(bitwise_equal(a.out, b.out));
  REQUIRE(a.grads.size() == b.grads.size());
  for (std::size_t i = 0; i < a.grads.size(); ++i) {
    INFO("gradient " << i);
    CHECK(bitwise_equal(a.grads[i], b.grads[i]));
  }
}

/// chunk_size 64 (two or more query chunks at `shapes`) against chunk_size 0: bit-identical output
/// and gradients.
inline void check_chunking(const ModuleCase& mc, const std::vector<Shape>& shapes) {
  auto plain = mc.make(0), chunked = mc.make(64);
  randomize_parameters(*plain, 3);
  randomize_parameters(*chunked, 3);
  require_bitwise_equal(run_with_grads(mc, *plain, shapes), run_with_grads(mc, *chunked, shapes));
}

/// Registry round trip: create(type_name, config) rebuilds the same parameters (same seed)
/// and, with the same parameter values, the same output.
inline void check_round_trip(const ModuleCase& mc) {
  Registry registry;
  bio::register_evoformer_layers(registry);
  auto module = mc.make(0);
  auto copy = registry.create(module->type_name(), module->config());
  copy->train(module->is_training());
  CHECK(copy->type_name() == module->type_name());
  CHECK(copy->config() == module->config());
  const auto a = module->named_parameters(), b = copy->named_parameters();
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].first == b[i].first);
    CHECK(bitwise_equal(a[i].second.value(), b[i].second.value()));
  }
  randomize_parameters(*module, 5);
  randomize_parameters(*copy, 5);
  const auto xs = as_vars(random_inputs(mc.input_shapes, 13), false);
  CHECK(bitwise_equal(mc.run(*module, xs).value(), mc.run(*copy, xs).value()));
}


}  // namespace attend::evoref
