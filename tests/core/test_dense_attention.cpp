#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "attend/core/error.hpp"
#include "attend/core/ops/dense_attention.hpp"
#include "attend/core/parallel.hpp"
#include "grad_check.hpp"

using namespace attend;
using attend::testing::check_gradients;
using attend::testing::random_tensor;

namespace {

// Value of a bias broadcast to [B, H, Nq, Nk] at (b, h, i, j), aligned from the right.
float bias_at(const Tensor& bias, int64_t b, int64_t h, int64_t i, int64_t j) {
  const int64_t idx[4] = {b, h, i, j};
  int64_t flat = 0;
  for (int a = 0; a < bias.rank(); ++a) {
    const int64_t dim = bias.dim(a);
    flat = flat * dim + (dim == 1 ? 0 : idx[4 - bias.rank() + a]);
  }
  return bias[flat];
}

struct Reference {
  Tensor out;      // [B, H, Nq, dv]
  Tensor weights;  // [B, H, Nq, Nk]
};

// The textbook computation, in double: the full score matrix of each head, a softmax per row
// (a row with every key masked gives zeros), the weighted sum of values, then the gate.
Reference naive_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                          const std::vector<Tensor>& biases, const Tensor* mask, bool causal,
                          const Tensor* gate, double scale) {
  const int64_t B = q.dim(0), H = q.dim(1), nq = q.dim(2), d = q.dim(3), nk = k.dim(2),
                dv = v.dim(3);
  Reference ref{Tensor({B, H, nq, dv}), Tensor({B, H, nq, nk})};
  std::vector<double> logits(nk);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t i = 0; i < nq; ++i) {
        double mx = -std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j < nk; ++j) {
          double s = 0;
          for (int64_t c = 0; c < d; ++c) s += double(q.at({b, h, i, c})) * k.at({b, h, j, c});
          s *= scale;
          for (const Tensor& bias : biases) s += bias_at(bias, b, h, i, j);
          const bool hidden = (mask != nullptr && mask->at({mask->dim(0) == 1 ? 0 : b, j}) == 0) ||
                              (causal && j > i);
          logits[j] = hidden ? -std::numeric_limits<double>::infinity() : s;
          mx = std::max(mx, logits[j]);
        }
        if (std::isinf(mx)) continue;  // every key masked: zeros
        double total = 0;
        for (int64_t j = 0; j < nk; ++j) total += std::exp(logits[j] - mx);
        for (int64_t c = 0; c < dv; ++c) {
          double o = 0;
          for (int64_t j = 0; j < nk; ++j) o += std::exp(logits[j] - mx) / total * v.at({b, h, j, c});
          if (gate != nullptr) o *= 1.0 / (1.0 + std::exp(-double(gate->at({b, h, i, c}))));
          ref.out.at({b, h, i, c}) = static_cast<float>(o);
        }
        for (int64_t j = 0; j < nk; ++j)
          ref.weights.at({b, h, i, j}) = static_cast<float>(std::exp(logits[j] - mx) / total);
      }
  return ref;
}

Tensor key_mask(int64_t B, int64_t nk, uint64_t seed) {
  Tensor m = random_tensor({B, nk}, seed, 0.0f, 1.0f);
  for (float& x : m) x = x < 0.3f ? 0.0f : 1.0f;
  return m;
}

}  // namespace

TEST_CASE("dense_attention matches a naive full-matrix reference on odd sizes", "[core]") {
  // Nq = 70 and Nk = 150 are not multiples of the 64 x 128 tiles; d != dv.
  const int64_t B = 2, H = 3, nq = 70, nk = 150, d = 5, dv = 7;
  const Tensor q = random_tensor({B, H, nq, d}, 1), k = random_tensor({B, H, nk, d}, 2),
               v = random_tensor({B, H, nk, dv}, 3), gate = random_tensor({B, H, nq, dv}, 4);
  const std::vector<Tensor> biases{random_tensor({B, 1, nq, nk}, 5), random_tensor({1, H, nq, nk}, 6),
                                   random_tensor({B, 1, 1, nk}, 7), random_tensor({nq, nk}, 8),
                                   random_tensor({B, H, nq, 1}, 9)};
  const Tensor mask = key_mask(B, nk, 10);
  for (int variant = 0; variant < 4; ++variant) {
    const bool causal = variant & 1, gated = variant & 2;
    DYNAMIC_SECTION("causal " << causal << " gated " << gated) {
      ops::DenseAttentionOptions opt;
      for (const Tensor& b : biases) opt.biases.emplace_back(b);
      opt.key_mask = &mask;
      opt.causal = causal;
      if (gated) opt.gate = Var(gate);
      opt.return_weights = true;
      Tensor weights;
      const Tensor out = ops::dense_attention(Var(q), Var(k), Var(v), opt, &weights).value();
      const Reference ref = naive_attention(q, k, v, biases, &mask, causal, gated ? &gate : nullptr,
                                            1.0 / std::sqrt(double(d)));
      REQUIRE(out.shape() == Shape{B, H, nq, dv});
      CHECK(max_abs_diff(out, ref.out) < 2e-5f);
      CHECK(max_abs_diff(weights, ref.weights) < 2e-6f);
    }
  }
}

TEST_CASE("dense_attention plain, explicit scale and Nq != Nk causal match the reference", "[core]") {
  const Tensor q = random_tensor({1, 2, 200, 16}, 11, -2.0f, 2.0f);
  const Tensor k = random_tensor({1, 2, 131, 16}, 12, -2.0f, 2.0f);
  const Tensor v = random_tensor({1, 2, 131, 3}, 13);
  for (bool causal : {false, true}) {
    ops::DenseAttentionOptions opt;
    opt.scale = 0.7f;
    opt.causal = causal;
    const Tensor out = ops::dense_attention(Var(q), Var(k), Var(v), opt).value();
    const Reference ref = naive_attention(q, k, v, {}, nullptr, causal, nullptr, 0.7);
    CHECK(max_abs_diff(out, ref.out) < 2e-5f);
  }
}

TEST_CASE("dense_attention at head widths of 32 and 48 matches the reference", "[core]") {
  // d = 32 and dv = 48 take the micro tiles two and one vectors wide (AVX-512; 48 = 32 + 16),
  // Nk = 176 leaves a 48-key tile, Nq = 70 leaves 6 rows after the 64-row tile; the bias
  // shared across the batch makes the forward run its items head-major.
  const int64_t B = 3, H = 2, nq = 70, nk = 176, d = 32, dv = 48;
  const Tensor q = random_tensor({B, H, nq, d}, 81), k = random_tensor({B, H, nk, d}, 82),
               v = random_tensor({B, H, nk, dv}, 83), gate = random_tensor({B, H, nq, dv}, 84);
  const std::vector<Tensor> biases{random_tensor({1, H, nq, nk}, 85)};
  const Tensor mask = key_mask(B, nk, 86);
  for (bool causal : {false, true}) {
    ops::DenseAttentionOptions opt;
    opt.biases = {Var(biases[0])};
    opt.key_mask = &mask;
    opt.causal = causal;
    opt.gate = Var(gate);
    opt.return_weights = true;
    Tensor weights;
    const Tensor out = ops::dense_attention(Var(q), Var(k), Var(v), opt, &weights).value();
    const Reference ref = naive_attention(q, k, v, biases, &mask, causal, &gate, 1.0 / std::sqrt(double(d)));
    INFO("causal " << causal);
    CHECK(max_abs_diff(out, ref.out) < 2e-5f);
    CHECK(max_abs_diff(weights, ref.weights) < 2e-6f);
  }
}

TEST_CASE("dense_attention gradients at head widths of 32 and 48", "[core][grad]") {
  const int64_t B = 2, H = 2, nq = 70, nk = 176, d = 32, dv = 48;
  const std::vector<Tensor> inputs{random_tensor({B, H, nq, d}, 91), random_tensor({B, H, nk, d}, 92),
                                   random_tensor({B, H, nk, dv}, 93), random_tensor({1, H, nq, nk}, 94),
                                   random_tensor({B, H, nq, dv}, 95)};
  testing::GradCheckOptions gopt;
  gopt.max_checks = 24;  // sampled elements per input
  auto f = [](const std::vector<Var>& x) {
    ops::DenseAttentionOptions opt;
    opt.biases = {x[3]};
    opt.gate = x[4];
    return ops::dense_attention(x[0], x[1], x[2], opt);
  };
  const auto r = check_gradients(f, inputs, gopt);
  INFO(r.report);
  CHECK(r.ok);
}

TEST_CASE("dense_attention gradients for q, k, v, every bias and the gate", "[core][grad]") {
  const int64_t B = 2, H = 2, nq = 5, nk = 6, d = 3, dv = 4;
  const Tensor mask({B, nk}, std::vector<float>{1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 0});
  const std::vector<Tensor> inputs{
      random_tensor({B, H, nq, d}, 21),  random_tensor({B, H, nk, d}, 22),
      random_tensor({B, H, nk, dv}, 23), random_tensor({B, 1, nq, nk}, 24),
      random_tensor({1, H, nq, nk}, 25), random_tensor({B, H, 1, nk}, 26),
      random_tensor({nq, 1}, 27),        random_tensor({B, H, nq, dv}, 28)};
  for (bool causal : {false, true}) {
    auto f = [&](const std::vector<Var>& x) {
      ops::DenseAttentionOptions opt;
      opt.biases = {x[3], x[4], x[5], x[6]};
      opt.gate = x[7];
      opt.key_mask = &mask;
      opt.causal = causal;
      return ops::dense_attention(x[0], x[1], x[2], opt);
    };
    const auto r = check_gradients(f, inputs);
    INFO("causal " << causal << "\n" << r.report);
    CHECK(r.ok);
  }
}

TEST_CASE("dense_attention gradients across several tiles and key segments", "[core][grad]") {
  // Nk = 300 spans three key tiles, so the backward splits keys into segments and sums dQ
  // partials; the pair bias [B, 1, Nq, Nk] folds the heads into one work item.
  const int64_t B = 1, H = 2, nq = 70, nk = 300, d = 4, dv = 3;
  const std::vector<Tensor> inputs{random_tensor({B, H, nq, d}, 31, -2.0f, 2.0f),
                                   random_tensor({B, H, nk, d}, 32, -2.0f, 2.0f),
                                   random_tensor({B, H, nk, dv}, 33), random_tensor({B, 1, nq, nk}, 34)};
  for (int variant = 0; variant < 4; ++variant) {
    const bool bias_grad = variant & 1, causal = variant & 2;
    testing::GradCheckOptions gopt;
    gopt.differentiable = {true, true, true, bias_grad};
    gopt.max_checks = 16;  // sampled elements per input: keeps the four variants fast
    auto f = [causal](const std::vector<Var>& x) {
      ops::DenseAttentionOptions opt;
      opt.biases = {x[3]};
      opt.causal = causal;
      return ops::dense_attention(x[0], x[1], x[2], opt);
    };
    const auto r = check_gradients(f, inputs, gopt);
    INFO("bias grad " << bias_grad << " causal " << causal << "\n" << r.report);
    CHECK(r.ok);
  }
}

TEST_CASE("dense_attention self-attention gradient with q = k = v", "[core][grad]") {
  // One Var used three times: dQ, dK and dV all land in one gradient buffer.
  auto f = [](const std::vector<Var>& x) { return ops::dense_attention(x[0], x[0], x[0]); };
  const auto small = check_gradients(f, {random_tensor({2, 2, 7, 4}, 35)});
  INFO(small.report);
  CHECK(small.ok);
  const auto tiled = check_gradients(f, {random_tensor({1, 1, 150, 4}, 36, -2.0f, 2.0f)});
  INFO(tiled.report);
  CHECK(tiled.ok);
}

namespace {
struct RunResult {
  std::vector<Tensor> tensors;  // output, then the gradient of every input
};

// Forward and backward of a fixed problem with the given chunk size and thread count; `wide`:
// heads of 40 channels (a two-vector micro tile and single columns) and a pair bias shared
// across the batch ([1, H, Nq, Nk], head-major forward items) instead of 8 and [B, 1, Nq, Nk].
RunResult run_problem(int64_t chunk, int threads, bool bias_grad, bool wide = false) {
  const int64_t B = 2, H = 3, nq = 300, nk = 270, d = wide ? 40 : 8, dv = d;
  const int before = num_threads();
  set_num_threads(threads);
  Var q(random_tensor({B, H, nq, d}, 41), true), k(random_tensor({B, H, nk, d}, 42), true),
      v(random_tensor({B, H, nk, dv}, 43), true), gate(random_tensor({B, H, nq, dv}, 44), true),
      pair(random_tensor(wide ? Shape{1, H, nq, nk} : Shape{B, 1, nq, nk}, 45), bias_grad);
  const Tensor mask = key_mask(B, nk, 46);
  ops::DenseAttentionOptions opt;
  opt.biases = {pair};
  opt.gate = gate;
  opt.key_mask = &mask;
  opt.chunk_size = chunk;
  Var out = ops::dense_attention(q, k, v, opt);
  out.backward(random_tensor(out.shape(), 47));
  set_num_threads(before);
  return {{out.value(), q.grad(), k.grad(), v.grad(), gate.grad(), pair.grad()}};
}
}  // namespace

TEST_CASE("dense_attention chunked equals unchunked bit for bit", "[core]") {
  for (bool wide : {false, true}) {
    const RunResult whole = run_problem(0, 2, true, wide);
    for (int64_t chunk : {1, 64, 100, 1000}) {
      const RunResult chunked = run_problem(chunk, 2, true, wide);
      for (std::size_t i = 0; i < whole.tensors.size(); ++i) {
        INFO("wide " << wide << " chunk " << chunk << " tensor " << i);
        CHECK(bitwise_equal(whole.tensors[i], chunked.tensors[i]));
      }
    }
  }
}

TEST_CASE("dense_attention is bit-identical for 1 and 2 threads", "[core]") {
  for (int variant = 0; variant < 4; ++variant) {
    const bool bias_grad = variant & 1, wide = variant & 2;
    const RunResult one = run_problem(0, 1, bias_grad, wide), two = run_problem(0, 2, bias_grad, wide);
    for (std::size_t i = 0; i < one.tensors.size(); ++i) {
      INFO("bias grad " << bias_grad << " wide " << wide << " tensor " << i);
      CHECK(bitwise_equal(one.tensors[i], two.tensors[i]));
    }
  }
}

TEST_CASE("dense_attention rows with every key masked give zeros and zero gradients", "[core]") {
  const int64_t B = 2, H = 2, nq = 9, nk = 140, d = 4, dv = 5;
  Var q(random_tensor({B, H, nq, d}, 51), true), k(random_tensor({B, H, nk, d}, 52), true),
      v(random_tensor({B, H, nk, dv}, 53), true), gate(random_tensor({B, H, nq, dv}, 54), true),
      bias(random_tensor({B, H, nq, nk}, 55), true);
  Tensor mask({B, nk}, 1.0f);
  for (int64_t j = 0; j < nk; ++j) mask.at({0, j}) = 0.0f;  // batch 0: every key masked
  mask.at({1, 0}) = 0.0f;  // batch 1, causal: query 0 sees only key 0, which is masked
  ops::DenseAttentionOptions opt;
  opt.biases = {bias};
  opt.gate = gate;
  opt.key_mask = &mask;
  opt.causal = true;
  opt.return_weights = true;
  Tensor weights;
  Var out = ops::dense_attention(q, k, v, opt, &weights);
  out.backward(random_tensor(out.shape(), 56));
  auto all_zero = [](const Tensor& t, std::initializer_list<int64_t> lead, int64_t count) {
    // `count` consecutive elements starting at the multi-index `lead` padded with zeros.
    std::vector<int64_t> idx(lead);
    idx.resize(t.rank(), 0);
    int64_t flat = 0;
    for (int a = 0; a < t.rank(); ++a) flat = flat * t.dim(a) + idx[a];
    for (int64_t e = 0; e < count; ++e) {
      if (t[flat + e] != 0.0f) return false;
    }
    return true;
  };
  const std::vector<const Tensor*> all{&out.value(), &q.grad(),    &k.grad(), &v.grad(),
                                       &gate.grad(),  &bias.grad(), &weights};
  for (const Tensor* t : all) {
    CHECK(all_zero(*t, {0}, t->numel() / B));  // the whole of batch 0
  }
  for (int64_t h = 0; h < H; ++h) {  // batch 1, query 0
    CHECK(all_zero(out.value(), {1, h, 0}, dv));
    CHECK(all_zero(q.grad(), {1, h, 0}, d));
    CHECK(all_zero(gate.grad(), {1, h, 0}, dv));
    CHECK(all_zero(bias.grad(), {1, h, 0}, nk));
  }
  for (float x : out.value()) CHECK(std::isfinite(x));
  for (float x : q.grad()) CHECK(std::isfinite(x));
  for (float x : k.grad()) CHECK(std::isfinite(x));
}

TEST_CASE("dense_attention rejects shapes that do not fit", "[core]") {
  const Var q(random_tensor({1, 2, 4, 3}, 61)), k(random_tensor({1, 2, 5, 3}, 62)),
      v(random_tensor({1, 2, 5, 2}, 63));
  ops::DenseAttentionOptions opt;
  opt.biases = {Var(random_tensor({1, 2, 4, 4}, 64))};
  CHECK_THROWS_AS(ops::dense_attention(q, k, v, opt), Error);
  CHECK_THROWS_AS(ops::dense_attention(q, v, k), Error);
  ops::DenseAttentionOptions ask;
  ask.return_weights = true;
  CHECK_THROWS_AS(ops::dense_attention(q, k, v, ask), Error);
}
