#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <vector>

#include "attend/core/csr.hpp"
#include "attend/core/error.hpp"
#include "attend/core/ops/head_dot.hpp"
#include "attend/core/ops/sparse_attention.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/random.hpp"
#include "grad_check.hpp"

using namespace attend;
using attend::testing::check_gradients;
using attend::testing::GradCheckOptions;
using attend::testing::random_tensor;

namespace {

struct EdgeList {
  int64_t n = 0;
  std::vector<int64_t> src, dst;
  int64_t size() const { return static_cast<int64_t>(src.size()); }
  Csr csr() const { return Csr::from_edges(n, src, dst); }
};

/// Six nodes, in no particular order: nodes 4 and 5 have no in-edges, 1 -> 1 and 2 -> 2 are
/// self-loops, 3 -> 0 appears twice.
EdgeList small_graph() {
  return {6,
          {0, 3, 2, 1, 4, 0, 3, 5, 2, 1, 4, 0},
          {1, 0, 1, 1, 0, 2, 0, 2, 2, 3, 3, 3}};
}

/// A random multigraph with self-loops, duplicates and (likely) isolated nodes.
EdgeList random_graph(int64_t n, int64_t e, uint64_t seed) {
  Rng rng(seed);
  EdgeList g{n, std::vector<int64_t>(e), std::vector<int64_t>(e)};
  for (int64_t k = 0; k < e; ++k) {
    g.src[k] = static_cast<int64_t>(rng.below(n));
    g.dst[k] = static_cast<int64_t>(rng.below(n));
  }
  return g;
}

/// Every ordered pair including self-pairs, in a shuffled order.
EdgeList complete_graph(int64_t n, uint64_t seed) {
  EdgeList g{n, {}, {}};
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      g.src.push_back(j);
      g.dst.push_back(i);
    }
  Rng rng(seed);
  for (int64_t k = g.size() - 1; k > 0; --k) {
    const int64_t r = static_cast<int64_t>(rng.below(k + 1));
    std::swap(g.src[k], g.src[r]);
    std::swap(g.dst[k], g.dst[r]);
  }
  return g;
}

double leaky(double x, double slope) { return x > 0 ? x : slope * x; }

/// The dropout multiplier the op documents: keep when counter_uniform >= p.
double dropout_factor(uint64_t seed, float p, int64_t edge, int64_t heads, int64_t h) {
  if (p == 0.0f) return 1.0;
  return counter_uniform(seed, edge * heads + h) < p ? 0.0 : 1.0 / (1.0 - p);
}

using EdgeScore = std::function<double(int64_t e, int64_t h)>;
using EdgeMessage = std::function<double(int64_t e, int64_t h, int64_t c)>;

/// Naive per-edge attention on the original edge list, in double: for each node and head a
/// softmax over the edges whose destination it is, then the weighted sum of messages.
/// `weights` [E, H] receives the probabilities (before dropout) by edge.
Tensor naive_attention(const EdgeList& g, int64_t heads, int64_t c, const EdgeScore& score,
                       const EdgeMessage& message, Tensor* weights, float p = 0.0f,
                       uint64_t seed = 0) {
  Tensor out({g.n, heads, c});
  if (weights) *weights = Tensor({g.size(), heads});
  for (int64_t i = 0; i < g.n; ++i) {
    for (int64_t h = 0; h < heads; ++h) {
      double mx = -1e300;
      for (int64_t e = 0; e < g.size(); ++e)
        if (g.dst[e] == i) mx = std::max(mx, score(e, h));
      double z = 0;
      for (int64_t e = 0; e < g.size(); ++e)
        if (g.dst[e] == i) z += std::exp(score(e, h) - mx);
      for (int64_t e = 0; e < g.size(); ++e) {
        if (g.dst[e] != i) continue;
        const double alpha = std::exp(score(e, h) - mx) / z;
        if (weights) (*weights)[e * heads + h] = static_cast<float>(alpha);
        const double a = alpha * dropout_factor(seed, p, e, heads, h);
        for (int64_t k = 0; k < c; ++k) {
          out[(i * heads + h) * c + k] += static_cast<float>(a * message(e, h, k));
        }
      }
    }
  }
  return out;
}

/// Values for a gat test whose LeakyReLU inputs s_src + s_dst stay at least 0.1 away from
/// the kink (so finite differences with eps 1e-2 never cross it): s_src = +-[0.3, 1],
/// s_dst in [-0.2, 0.2]. Both branches of the LeakyReLU occur.
Tensor away_from_kink_src(const Shape& shape, uint64_t seed) {
  Tensor t = random_tensor(shape, seed, 0.3f, 1.0f);
  Rng sign(seed + 1);
  for (float& x : t) x = sign.uniform() < 0.5f ? -x : x;
  return t;
}
Tensor away_from_kink_dst(const Shape& shape, uint64_t seed) {
  return random_tensor(shape, seed, -0.2f, 0.2f);
}

}  // namespace

TEST_CASE("head_dot matches a naive sum and has correct gradients", "[core][grad]") {
  const Tensor x = random_tensor({5, 3, 4}, 1), a = random_tensor({3, 4}, 2);
  const Tensor s = ops::head_dot(Var(x), Var(a)).value();
  REQUIRE(s.shape() == Shape{5, 3});
  for (int64_t n = 0; n < 5; ++n)
    for (int64_t h = 0; h < 3; ++h) {
      double ref = 0;
      for (int64_t c = 0; c < 4; ++c) ref += double(x.at({n, h, c})) * a.at({h, c});
      CHECK(s.at({n, h}) == Approx(ref).margin(1e-6));
    }
  auto r = check_gradients([](const std::vector<Var>& v) { return ops::head_dot(v[0], v[1]); },
                           {x, a});
  INFO(r.report);
  CHECK(r.ok);
  CHECK_THROWS_AS(ops::head_dot(Var(x), Var(random_tensor({3, 5}, 3))), Error);
}

TEST_CASE("gat rule equals a naive per-edge reference", "[core]") {
  const EdgeList g = small_graph();
  const int64_t heads = 3, c = 4;
  const Tensor s_src = random_tensor({g.n, heads}, 11, -2, 2);
  const Tensor s_dst = random_tensor({g.n, heads}, 12, -2, 2);
  const Tensor v = random_tensor({g.n, heads, c}, 13);
  ops::SparseAttentionOptions opt;
  opt.negative_slope = 0.1f;
  Tensor weights;
  const Tensor out = ops::sparse_attention(g.csr(), ops::SparseScores::gat(Var(s_src), Var(s_dst)),
                                           Var(v), opt, &weights)
                         .value();
  Tensor ref_weights;
  const Tensor ref = naive_attention(
      g, heads, c,
      [&](int64_t e, int64_t h) {
        return leaky(double(s_src.at({g.src[e], h})) + s_dst.at({g.dst[e], h}), 0.1);
      },
      [&](int64_t e, int64_t h, int64_t k) { return v.at({g.src[e], h, k}); }, &ref_weights);
  REQUIRE(out.shape() == ref.shape());
  CHECK(max_abs_diff(out, ref) < 1e-5f);
  REQUIRE(weights.shape() == Shape{g.size(), heads});
  CHECK(max_abs_diff(weights, ref_weights) < 1e-6f);
  // Nodes 4 and 5 have no in-edges: zeros.
  for (int64_t k = 4 * heads * c; k < out.numel(); ++k) CHECK(out[k] == 0.0f);
}

TEST_CASE("precomputed logits equal a naive per-edge reference", "[core]") {
  const EdgeList g = small_graph();
  const int64_t heads = 2, c = 3;
  const Tensor logits = random_tensor({g.size(), heads}, 21, -3, 3);
  const Tensor v = random_tensor({g.n, heads, c}, 22);
  Tensor weights;
  const Tensor out =
      ops::sparse_attention(g.csr(), ops::SparseScores::precomputed(Var(logits)), Var(v), {},
                            &weights)
          .value();
  Tensor ref_weights;
  const Tensor ref = naive_attention(
      g, heads, c, [&](int64_t e, int64_t h) { return double(logits.at({e, h})); },
      [&](int64_t e, int64_t h, int64_t k) { return v.at({g.src[e], h, k}); }, &ref_weights);
  CHECK(max_abs_diff(out, ref) < 1e-5f);
  CHECK(max_abs_diff(weights, ref_weights) < 1e-6f);
  CHECK_THROWS_AS(ops::sparse_attention(g.csr(),
                                        ops::SparseScores::precomputed(
                                            Var(random_tensor({g.size() - 1, heads}, 23))),
                                        Var(v)),
                  Error);
}

TEST_CASE("gatv2 rule equals a naive per-edge reference", "[core]") {
  const EdgeList g = small_graph();
  const int64_t heads = 2, c = 3, cs = 5;
  const Tensor xs = random_tensor({g.n, heads, cs}, 21);
  const Tensor xd = random_tensor({g.n, heads, cs}, 22);
  const Tensor att = random_tensor({heads, cs}, 23, -2, 2);
  const Tensor v = random_tensor({g.n, heads, c}, 24);
  const Tensor out =
      ops::sparse_attention(g.csr(), ops::SparseScores::gatv2(Var(xs), Var(xd), Var(att)),
                            Var(v))
          .value();
  const Tensor ref = naive_attention(
      g, heads, c,
      [&](int64_t e, int64_t h) {
        double s = 0;
        for (int64_t k = 0; k < cs; ++k)
          s += att.at({h, k}) *
               leaky(double(xs.at({g.src[e], h, k})) + xd.at({g.dst[e], h, k}), 0.2);
        return s;
      },
      [&](int64_t e, int64_t h, int64_t k) { return v.at({g.src[e], h, k}); }, nullptr);
  CHECK(max_abs_diff(out, ref) < 1e-5f);
}

TEST_CASE("dot rule with edge features equals a naive TransformerConv reference", "[core]") {
  const EdgeList g = small_graph();
  const int64_t heads = 2, d = GENERATE(4, 8, 16);  // 8 and 16: the one-register dot products
  CAPTURE(d);
  const Tensor q = random_tensor({g.n, heads, d}, 31), k = random_tensor({g.n, heads, d}, 32);
  const Tensor v = random_tensor({g.n, heads, d}, 33);
  const Tensor ef = random_tensor({g.size(), heads, d}, 34);
  ops::SparseAttentionOptions opt;
  opt.scale = 0.7f;
  const Tensor out = ops::sparse_attention(
                         g.csr(), ops::SparseScores::dot(Var(q), Var(k), Var(ef)), Var(v), opt)
                         .value();
  const Tensor ref = naive_attention(
      g, heads, d,
      [&](int64_t e, int64_t h) {
        double s = 0;
        for (int64_t x = 0; x < d; ++x)
          s += double(q.at({g.dst[e], h, x})) * (double(k.at({g.src[e], h, x})) + ef.at({e, h, x}));
        return 0.7 * s;
      },
      [&](int64_t e, int64_t h, int64_t x) {
        return double(v.at({g.src[e], h, x})) + ef.at({e, h, x});
      },
      nullptr);
  CHECK(max_abs_diff(out, ref) < 1e-5f);
}

TEST_CASE("dot rule on a complete graph equals dense softmax attention", "[core]") {
  const int64_t n = 9, heads = 3, d = 5, c = 6;
  const EdgeList g = complete_graph(n, 41);
  const Tensor q = random_tensor({n, heads, d}, 42, -2, 2);
  const Tensor k = random_tensor({n, heads, d}, 43, -2, 2);
  const Tensor v = random_tensor({n, heads, c}, 44);
  const Tensor out =
      ops::sparse_attention(g.csr(), ops::SparseScores::dot(Var(q), Var(k)), Var(v)).value();
  // Plain dense attention: softmax_j(q_i . k_j / sqrt(d)) v_j, per head.
  Tensor dense({n, heads, c});
  for (int64_t h = 0; h < heads; ++h) {
    for (int64_t i = 0; i < n; ++i) {
      std::vector<double> s(n);
      double mx = -1e300, z = 0;
      for (int64_t j = 0; j < n; ++j) {
        for (int64_t x = 0; x < d; ++x) s[j] += double(q.at({i, h, x})) * k.at({j, h, x});
        s[j] /= std::sqrt(double(d));
        mx = std::max(mx, s[j]);
      }
      for (int64_t j = 0; j < n; ++j) z += std::exp(s[j] - mx);
      for (int64_t x = 0; x < c; ++x) {
        double acc = 0;
        for (int64_t j = 0; j < n; ++j) acc += std::exp(s[j] - mx) / z * v.at({j, h, x});
        dense.at({i, h, x}) = static_cast<float>(acc);
      }
    }
  }
  CHECK(max_abs_diff(out, dense) < 1e-5f);
}

TEST_CASE("sparse_attention gradients, every rule", "[core][grad]") {
  const EdgeList g = small_graph();
  const Csr csr = g.csr();
  // 3 channels take the kernels' general loops; 8 and 16 their one-register dot products.
  const int64_t heads = 2, c = GENERATE(3, 8, 16);
  CAPTURE(c);
  GradCheckOptions gc;
  gc.max_checks = 36;

  SECTION("gat") {
    auto f = [&](const std::vector<Var>& v) {
      return ops::sparse_attention(csr, ops::SparseScores::gat(v[0], v[1]), v[2]);
    };
    auto r = check_gradients(f, {away_from_kink_src({g.n, heads}, 51),
                                 away_from_kink_dst({g.n, heads}, 52),
                                 random_tensor({g.n, heads, c}, 53)},
                             gc);
    INFO(r.report);
    CHECK(r.ok);
  }
  SECTION("gatv2, values shared with x_src") {
    auto f = [&](const std::vector<Var>& v) {
      return ops::sparse_attention(csr, ops::SparseScores::gatv2(v[0], v[1], v[2]), v[0]);
    };
    auto r = check_gradients(f, {away_from_kink_src({g.n, heads, c}, 54),
                                 away_from_kink_dst({g.n, heads, c}, 55),
                                 random_tensor({heads, c}, 56, -2, 2)},
                             gc);
    INFO(r.report);
    CHECK(r.ok);
  }
  SECTION("dot") {
    auto f = [&](const std::vector<Var>& v) {
      return ops::sparse_attention(csr, ops::SparseScores::dot(v[0], v[1]), v[2]);
    };
    auto r = check_gradients(f, {random_tensor({g.n, heads, 4}, 57, -2, 2),
                                 random_tensor({g.n, heads, 4}, 58, -2, 2),
                                 random_tensor({g.n, heads, c}, 59)},
                             gc);
    INFO(r.report);
    CHECK(r.ok);
  }
  SECTION("dot with edge features") {
    auto f = [&](const std::vector<Var>& v) {
      return ops::sparse_attention(csr, ops::SparseScores::dot(v[0], v[1], v[3]), v[2]);
    };
    auto r = check_gradients(f, {random_tensor({g.n, heads, c}, 60, -2, 2),
                                 random_tensor({g.n, heads, c}, 61, -2, 2),
                                 random_tensor({g.n, heads, c}, 62),
                                 random_tensor({g.size(), heads, c}, 63)},
                             gc);
    INFO(r.report);
    CHECK(r.ok);
  }
  SECTION("precomputed logits, with dropout while training") {
    ops::SparseAttentionOptions opt;
    opt.dropout = 0.3f;
    opt.training = true;
    opt.seed = 17;
    auto f = [&](const std::vector<Var>& v) {
      return ops::sparse_attention(csr, ops::SparseScores::precomputed(v[0]), v[1], opt);
    };
    auto r = check_gradients(f, {random_tensor({g.size(), heads}, 71, -2, 2),
                                 random_tensor({g.n, heads, c}, 72)},
                             gc);
    INFO(r.report);
    CHECK(r.ok);
  }
  SECTION("gat with attention dropout while training") {
    ops::SparseAttentionOptions opt;
    opt.dropout = 0.3f;
    opt.training = true;
    opt.seed = 99;
    auto f = [&](const std::vector<Var>& v) {
      return ops::sparse_attention(csr, ops::SparseScores::gat(v[0], v[1]), v[2], opt);
    };
    auto r = check_gradients(f, {away_from_kink_src({g.n, heads}, 64),
                                 away_from_kink_dst({g.n, heads}, 65),
                                 random_tensor({g.n, heads, c}, 66)},
                             gc);
    INFO(r.report);
    CHECK(r.ok);
  }
  SECTION("dot with edge features and dropout") {
    ops::SparseAttentionOptions opt;
    opt.dropout = 0.25f;
    opt.training = true;
    opt.seed = 5;
    auto f = [&](const std::vector<Var>& v) {
      return ops::sparse_attention(csr, ops::SparseScores::dot(v[0], v[1], v[3]), v[2], opt);
    };
    auto r = check_gradients(f, {random_tensor({g.n, heads, c}, 67, -2, 2),
                                 random_tensor({g.n, heads, c}, 68, -2, 2),
                                 random_tensor({g.n, heads, c}, 69),
                                 random_tensor({g.size(), heads, c}, 70)},
                             gc);
    INFO(r.report);
    CHECK(r.ok);
  }
}

// Heads of 8 and 16 channels take the dot products' one-register path (GAT's backward, the
// dot rule's scores and backward); the cases above have 3 or 4 channels.
TEST_CASE("a GAT layer built from head_dot and sparse_attention has correct gradients",
          "[core][grad]") {
  const EdgeList g = small_graph();
  const Csr csr = g.csr();
  const int64_t heads = 2, c = 3;
  const Tensor x = random_tensor({g.n, heads, c}, 71);
  const Tensor a_src = random_tensor({heads, c}, 72), a_dst = random_tensor({heads, c}, 73);
  // Precondition for finite differences with eps 1e-3: no LeakyReLU input is near its kink.
  const Tensor s_src = ops::head_dot(Var(x), Var(a_src)).value();
  const Tensor s_dst = ops::head_dot(Var(x), Var(a_dst)).value();
  for (int64_t e = 0; e < g.size(); ++e)
    for (int64_t h = 0; h < heads; ++h)
      REQUIRE(std::fabs(s_src.at({g.src[e], h}) + s_dst.at({g.dst[e], h})) > 0.01f);
  // x feeds the values and both per-node terms.
  auto f = [&](const std::vector<Var>& v) {
    Var s_src = ops::head_dot(v[0], v[1]), s_dst = ops::head_dot(v[0], v[2]);
    return ops::sparse_attention(csr, ops::SparseScores::gat(s_src, s_dst), v[0]);
  };
  GradCheckOptions gc;
  gc.eps = 1e-3f;
  gc.rtol = 3e-2f;
  gc.atol = 3e-3f;
  auto r = check_gradients(f, {x, a_src, a_dst}, gc);
  INFO(r.report);
  CHECK(r.ok);
}

TEST_CASE("attention dropout is seeded and only active in training", "[core]") {
  const EdgeList g = random_graph(50, 400, 81);
  const Csr csr = g.csr();
  const int64_t heads = 4, c = 3;
  const Tensor s_src = random_tensor({g.n, heads}, 82), s_dst = random_tensor({g.n, heads}, 83);
  const Tensor v = random_tensor({g.n, heads, c}, 84);
  auto run = [&](float p, uint64_t seed, bool training) {
    ops::SparseAttentionOptions opt;
    opt.dropout = p;
    opt.seed = seed;
    opt.training = training;
    return ops::sparse_attention(csr, ops::SparseScores::gat(Var(s_src), Var(s_dst)), Var(v),
                                 opt)
        .value();
  };
  const Tensor plain = run(0.0f, 0, true);
  CHECK(bitwise_equal(run(0.4f, 7, true), run(0.4f, 7, true)));
  CHECK_FALSE(bitwise_equal(run(0.4f, 7, true), run(0.4f, 8, true)));
  CHECK(bitwise_equal(run(0.4f, 7, false), plain));
  CHECK_FALSE(bitwise_equal(run(0.4f, 7, true), plain));
  // The documented mask, applied by the naive reference.
  const Tensor ref = naive_attention(
      g, heads, c,
      [&](int64_t e, int64_t h) {
        return leaky(double(s_src.at({g.src[e], h})) + s_dst.at({g.dst[e], h}), 0.2);
      },
      [&](int64_t e, int64_t h, int64_t k) { return v.at({g.src[e], h, k}); }, nullptr, 0.4f,
      7);
  CHECK(max_abs_diff(run(0.4f, 7, true), ref) < 1e-5f);
}

TEST_CASE("sparse_attention is bit-identical for 1 and 2 threads", "[core]") {
  const EdgeList g = random_graph(1500, 15000, 91);
  const Csr csr = g.csr();
  const int64_t heads = 4, c = 8;
  ops::SparseAttentionOptions opt;
  opt.dropout = 0.2f;
  opt.training = true;
  opt.seed = 3;
  const Tensor seed_grad = random_tensor({g.n, heads, c}, 92);
  // inputs: values, src term, dst term, [att | edge]
  auto run = [&](int threads, ops::SparseScores::Rule rule) {
    set_num_threads(threads);
    Var v(random_tensor({g.n, heads, c}, 93), true);
    Var a, b, extra;
    ops::SparseScores scores;
    switch (rule) {
      case ops::SparseScores::Rule::kGat:
        a = Var(random_tensor({g.n, heads}, 94), true);
        b = Var(random_tensor({g.n, heads}, 95), true);
        scores = ops::SparseScores::gat(a, b);
        break;
      case ops::SparseScores::Rule::kGatV2:
        a = Var(random_tensor({g.n, heads, c}, 94), true);
        b = Var(random_tensor({g.n, heads, c}, 95), true);
        extra = Var(random_tensor({heads, c}, 96), true);
        scores = ops::SparseScores::gatv2(a, b, extra);
        break;
      case ops::SparseScores::Rule::kDot:
        a = Var(random_tensor({g.n, heads, c}, 94), true);
        b = Var(random_tensor({g.n, heads, c}, 95), true);
        extra = Var(random_tensor({g.size(), heads, c}, 96), true);
        scores = ops::SparseScores::dot(a, b, extra);
        break;
      case ops::SparseScores::Rule::kLogits:
        a = Var(random_tensor({g.size(), heads}, 94, -2, 2), true);
        b = a;
        scores = ops::SparseScores::precomputed(a);
        break;
    }
    Tensor weights;
    Var y = ops::sparse_attention(csr, scores, v, opt, &weights);
    y.backward(seed_grad);
    std::vector<Tensor> all{y.value(), weights, v.grad(), a.grad(), b.grad()};
    if (extra.defined()) all.push_back(extra.grad());
    return all;
  };
  const int before = num_threads();
  for (auto rule : {ops::SparseScores::Rule::kGat, ops::SparseScores::Rule::kGatV2,
                    ops::SparseScores::Rule::kDot, ops::SparseScores::Rule::kLogits}) {
    const auto one = run(1, rule), two = run(2, rule);
    for (std::size_t i = 0; i < one.size(); ++i) {
      INFO("rule " << static_cast<int>(rule) << ", tensor " << i);
      CHECK(bitwise_equal(one[i], two[i]));
    }
  }
  set_num_threads(before);
}

TEST_CASE("sparse_attention: zero in-degree nodes get zeros and no gradient", "[core]") {
  const EdgeList g = small_graph();  // nodes 4 and 5 have no in-edges
  const int64_t heads = 2, c = 3;
  Var s_src(random_tensor({g.n, heads}, 101), true), s_dst(random_tensor({g.n, heads}, 102), true);
  Var v(random_tensor({g.n, heads, c}, 103), true);
  Var y = ops::sparse_attention(g.csr(), ops::SparseScores::gat(s_src, s_dst), v);
  for (int64_t node : {4, 5})
    for (int64_t k = 0; k < heads * c; ++k) CHECK(y.value()[node * heads * c + k] == 0.0f);
  y.backward(random_tensor({g.n, heads, c}, 104));
  for (int64_t h = 0; h < heads; ++h) {
    CHECK(s_dst.grad().at({4, h}) == 0.0f);
    CHECK(s_dst.grad().at({5, h}) == 0.0f);
  }
  // A graph with no edges at all.
  const Tensor out = ops::sparse_attention(Csr::from_edges(g.n, {}, {}),
                                           ops::SparseScores::gat(s_src, s_dst), v)
                         .value();
  for (float x : out) CHECK(x == 0.0f);
}

TEST_CASE("sparse_attention rejects inconsistent shapes", "[core]") {
  const EdgeList g = small_graph();
  const Csr csr = g.csr();
  const Var v(random_tensor({g.n, 2, 3}, 1));
  const Var s(random_tensor({g.n, 2}, 2));
  const Var s3(random_tensor({g.n, 3}, 3));
  CHECK_THROWS_AS(ops::sparse_attention(csr, ops::SparseScores::gat(s, s3), v), Error);
  const Var v4(random_tensor({4, 2, 3}, 4));
  CHECK_THROWS_AS(ops::sparse_attention(csr, ops::SparseScores::gat(s, s), v4), Error);
  const Var x(random_tensor({g.n, 2, 3}, 5)), att(random_tensor({2, 4}, 6));
  CHECK_THROWS_AS(ops::sparse_attention(csr, ops::SparseScores::gatv2(x, x, att), v), Error);
  const Var edge(random_tensor({3, 2, 3}, 7));  // needs E = 12 rows
  CHECK_THROWS_AS(ops::sparse_attention(csr, ops::SparseScores::dot(x, x, edge), v), Error);
  ops::SparseAttentionOptions bad;
  bad.dropout = 1.0f;
  CHECK_THROWS_AS(ops::sparse_attention(csr, ops::SparseScores::gat(s, s), v, bad), Error);
}

TEST_CASE("sparse_attention: gradients of a subset of inputs equal those of all inputs",
          "[core]") {
  // The backward skips the passes whose gradients nobody asked for; what it does compute
  // must not change with that.
  const EdgeList g = random_graph(300, 2400, 31);
  const Csr csr = g.csr();
  const int64_t heads = 3, c = 5;
  ops::SparseAttentionOptions opt;
  opt.dropout = 0.25f;
  opt.training = true;
  opt.seed = 7;
  const Tensor seed_grad = random_tensor({g.n, heads, c}, 32);
  auto run = [&](bool values_grad, bool scores_grad) {
    Var v(random_tensor({g.n, heads, c}, 33), values_grad);
    Var q(random_tensor({g.n, heads, c}, 34), scores_grad);
    Var k(random_tensor({g.n, heads, c}, 35), scores_grad);
    Var e(random_tensor({g.size(), heads, c}, 36), scores_grad);
    ops::sparse_attention(csr, ops::SparseScores::dot(q, k, e), v, opt).backward(seed_grad);
    return std::vector<Tensor>{values_grad ? v.grad() : Tensor(), scores_grad ? q.grad() : Tensor(),
                               scores_grad ? k.grad() : Tensor(), scores_grad ? e.grad() : Tensor()};
  };
  const auto all = run(true, true);
  const auto values_only = run(true, false);
  const auto scores_only = run(false, true);
  CHECK(bitwise_equal(all[0], values_only[0]));
  for (int i = 1; i < 4; ++i) {
    INFO("score input " << i);
    CHECK(bitwise_equal(all[i], scores_only[i]));
  }
}

TEST_CASE("an edge scale multiplies each message after the softmax, as a naive reference", "[core]") {
  const EdgeList g = small_graph();
  const int64_t heads = 3, c = 4;
  const Tensor s_src = random_tensor({g.n, heads}, 111, -2, 2);
  const Tensor s_dst = random_tensor({g.n, heads}, 112, -2, 2);
  const Tensor v = random_tensor({g.n, heads, c}, 113);
  const Tensor scale = random_tensor({g.size()}, 114, 0.0f, 1.0f);
  Tensor weights;
  const Csr scaled = g.csr().with_edge_scale(Var(scale));
  const Tensor out =
      ops::sparse_attention(scaled, ops::SparseScores::gat(Var(s_src), Var(s_dst)), Var(v), {}, &weights).value();
  Tensor ref_weights;
  const Tensor ref = naive_attention(
      g, heads, c,
      [&](int64_t e, int64_t h) { return leaky(double(s_src.at({g.src[e], h})) + s_dst.at({g.dst[e], h}), 0.2); },
      [&](int64_t e, int64_t h, int64_t k) { return double(scale[e]) * v.at({g.src[e], h, k}); }, &ref_weights);
  CHECK(max_abs_diff(out, ref) < 1e-5f);
  CHECK(max_abs_diff(weights, ref_weights) < 1e-6f);  // the softmax does not see the scale
  // A scale of ones changes nothing, bit for bit; the unscaled Csr has no scale.
  const Tensor plain = ops::sparse_attention(g.csr(), ops::SparseScores::gat(Var(s_src), Var(s_dst)), Var(v)).value();
  const Csr ones = g.csr().with_edge_scale(Var(Tensor({g.size()}, 1.0f)));
  CHECK(bitwise_equal(ops::sparse_attention(ones, ops::SparseScores::gat(Var(s_src), Var(s_dst)), Var(v)).value(), plain));
  CHECK_FALSE(g.csr().edge_scale().defined());
  CHECK_THROWS_AS(g.csr().with_edge_scale(Var(Tensor({g.size() + 1}, 1.0f))), Error);
}

TEST_CASE("sparse_attention gradients with an edge scale, every rule", "[core][grad]") {
  const EdgeList g = small_graph();
  const Csr csr = g.csr();
  const int64_t heads = 2, c = 3;
  GradCheckOptions gc;
  gc.max_checks = 36;
  const Tensor scale = random_tensor({g.size()}, 120, 0.2f, 1.0f);
  auto check = [&](const std::function<Var(const Csr&, const std::vector<Var>&)>& f, std::vector<Tensor> inputs) {
    inputs.push_back(scale);  // the scale is the last input
    auto r = check_gradients(
        [&](const std::vector<Var>& v) { return f(csr.with_edge_scale(v.back()), v); }, inputs, gc);
    INFO(r.report);
    CHECK(r.ok);
  };
  SECTION("gat, with dropout while training") {
    ops::SparseAttentionOptions opt;
    opt.dropout = 0.3f;
    opt.training = true;
    opt.seed = 99;
    check([&](const Csr& s, const std::vector<Var>& v) {
      return ops::sparse_attention(s, ops::SparseScores::gat(v[0], v[1]), v[2], opt);
    }, {away_from_kink_src({g.n, heads}, 121), away_from_kink_dst({g.n, heads}, 122), random_tensor({g.n, heads, c}, 123)});
  }
  SECTION("gatv2") {
    check([&](const Csr& s, const std::vector<Var>& v) {
      return ops::sparse_attention(s, ops::SparseScores::gatv2(v[0], v[1], v[2]), v[0]);
    }, {away_from_kink_src({g.n, heads, c}, 124), away_from_kink_dst({g.n, heads, c}, 125), random_tensor({heads, c}, 126, -2, 2)});
  }
  SECTION("dot with edge features") {
    check([&](const Csr& s, const std::vector<Var>& v) {
      return ops::sparse_attention(s, ops::SparseScores::dot(v[0], v[1], v[3]), v[2]);
    }, {random_tensor({g.n, heads, c}, 127, -2, 2), random_tensor({g.n, heads, c}, 128, -2, 2),
        random_tensor({g.n, heads, c}, 129), random_tensor({g.size(), heads, c}, 130)});
  }
  SECTION("precomputed logits") {
    check([&](const Csr& s, const std::vector<Var>& v) {
      return ops::sparse_attention(s, ops::SparseScores::precomputed(v[0]), v[1]);
    }, {random_tensor({g.size(), heads}, 131, -2, 2), random_tensor({g.n, heads, c}, 132)});
  }
  SECTION("the scale alone requires a gradient") {
    const Tensor s_src = random_tensor({g.n, heads}, 133), s_dst = random_tensor({g.n, heads}, 134);
    const Tensor v = random_tensor({g.n, heads, c}, 135);
    auto r = check_gradients([&](const std::vector<Var>& in) {
      return ops::sparse_attention(csr.with_edge_scale(in[0]), ops::SparseScores::gat(Var(s_src), Var(s_dst)), Var(v));
    }, {scale}, gc);
    INFO(r.report);
    CHECK(r.ok);
  }
}

TEST_CASE("sparse_attention with an edge scale is bit-identical for 1 and 2 threads", "[core]") {
  const EdgeList g = random_graph(1500, 15000, 191);
  const int64_t heads = 4, c = 8;
  ops::SparseAttentionOptions opt;
  opt.dropout = 0.2f;
  opt.training = true;
  opt.seed = 3;
  const Tensor seed_grad = random_tensor({g.n, heads, c}, 192);
  auto run = [&](int threads) {
    set_num_threads(threads);
    Var v(random_tensor({g.n, heads, c}, 193), true), q(random_tensor({g.n, heads, c}, 194), true);
    Var k(random_tensor({g.n, heads, c}, 195), true), e(random_tensor({g.size(), heads, c}, 196), true);
    Var scale(random_tensor({g.size()}, 197, 0.0f, 1.0f), true);
    Var y = ops::sparse_attention(g.csr().with_edge_scale(scale), ops::SparseScores::dot(q, k, e), v, opt);
    y.backward(seed_grad);
    return std::vector<Tensor>{y.value(), v.grad(), q.grad(), k.grad(), e.grad(), scale.grad()};
  };
  const int before = num_threads();
  const auto one = run(1), two = run(2);
  set_num_threads(before);
  for (std::size_t i = 0; i < one.size(); ++i) {
    INFO("tensor " << i);
    CHECK(bitwise_equal(one[i], two[i]));
  }
}
