// Per-head attention maps of factored attention and of the Evoformer contact model, and their
// reading as contact maps (symmetrise, APC), against plain references.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>

#include "attend/bio/contact_model.hpp"
#include "attend/bio/evoformer/msa_row_attention.hpp"
#include "attend/bio/evoformer/triangle_attention.hpp"
#include "attend/bio/head_contact_maps.hpp"
#include "attend/core/parallel.hpp"
#include "evoformer_reference.hpp"
#include "planted_potts.hpp"
#include "scoped_threads.hpp"
#include "synthetic_family.hpp"
#include "tiny_contact_model.hpp"

using namespace attend;
using namespace attend::evoref;

namespace {

// APC of one symmetric [L, L] map in double, straight from Dunn et al. 2008.
Vec reference_apc(const Vec& s, int64_t L) {
  Vec row(L, 0.0);
  double all = 0.0;
  for (int64_t i = 0; i < L; ++i)
    for (int64_t j = 0; j < L; ++j)
      if (i != j) {
        row[i] += s[i * L + j] / (L - 1);
        all += s[i * L + j] / (L * (L - 1));
      }
  Vec out(L * L, 0.0);
  for (int64_t i = 0; i < L; ++i)
    for (int64_t j = 0; j < L; ++j)
      if (i != j) out[i * L + j] = s[i * L + j] - row[i] * row[j] / all;
  return out;
}

// Softmax over keys of logits(i, j) per query row i, in double.
Vec reference_softmax_rows(int64_t n, const std::function<double(int64_t, int64_t)>& logit) {
  Vec p(n * n, 0.0);
  for (int64_t i = 0; i < n; ++i) {
    double mx = -1e300, sum = 0.0;
    for (int64_t j = 0; j < n; ++j) mx = std::max(mx, logit(i, j));
    for (int64_t j = 0; j < n; ++j) sum += (p[i * n + j] = std::exp(logit(i, j) - mx));
    for (int64_t j = 0; j < n; ++j) p[i * n + j] /= sum;
  }
  return p;
}

// AF2 Alg. 7's attention probabilities [S, H, N, N] for m [S, N, c_m], z [N, N, c_z].
Vec reference_row_attention(const Vec& m, const Vec& z, int64_t s, int64_t n, int64_t cm, int64_t cz, int64_t heads,
                            int64_t ch, const Params& p) {
  const Vec x = layer_norm(m, cm, p.sub("layer_norm_m"));
  const Vec bz = linear(layer_norm(z, cz, p.sub("layer_norm_z")), cz, p.sub("linear_z"), false);  // [N, N, H]
  const Vec q = linear(x, cm, p.sub("mha.linear_q"), false), k = linear(x, cm, p.sub("mha.linear_k"), false);
  const int64_t hc = heads * ch;
  Vec out;
  for (int64_t r = 0; r < s; ++r)
    for (int64_t h = 0; h < heads; ++h) {
      const Vec row = reference_softmax_rows(n, [&](int64_t i, int64_t j) {
        double dot = 0.0;
        for (int64_t t = 0; t < ch; ++t) dot += q[(r * n + i) * hc + h * ch + t] * k[(r * n + j) * hc + h * ch + t];
        return dot / std::sqrt(double(ch)) + bz[(i * n + j) * heads + h];
      });
      out.insert(out.end(), row.begin(), row.end());
    }
  return out;
}

// AF2 Alg. 13's attention probabilities [N (shared), H, N, N] for z [N, N, c_z]: pair (s, q)
// attends to (s, k) by softmax_k(q_sq . k_sk / sqrt(c) + b_qk); Alg. 14 (starting false) is
// the same on z transposed, so pair (q, s) attends to (k, s).
Vec reference_triangle_weights(const Vec& z_in, int64_t n, int64_t cz, int64_t heads, int64_t ch, bool starting,
                               const Params& p) {
  const Vec z = starting ? z_in : transpose01(z_in, n, n, cz);
  const Vec zn = layer_norm(z, cz, p.sub("layer_norm"));
  const Vec q = linear(zn, cz, p.sub("mha.linear_q"), false), k = linear(zn, cz, p.sub("mha.linear_k"), false);
  const Vec b = linear(zn, cz, p.sub("linear_b"), false);  // [N, N, H]
  const int64_t hc = heads * ch;
  Vec out;
  for (int64_t s = 0; s < n; ++s)
    for (int64_t h = 0; h < heads; ++h) {
      const Vec row = reference_softmax_rows(n, [&](int64_t a, int64_t c) {
        double dot = 0.0;
        for (int64_t t = 0; t < ch; ++t) dot += q[(s * n + a) * hc + h * ch + t] * k[(s * n + c) * hc + h * ch + t];
        return dot / std::sqrt(double(ch)) + b[(a * n + c) * heads + h];
      });
      out.insert(out.end(), row.begin(), row.end());
    }
  return out;
}

bio::ContactModelOptions tiny_options(int64_t blocks) { return testing::tiny_contact_model_options(blocks); }

/// The contact-model cases' setup: one thread, a synthetic family of 8 residues and a tiny
/// model of `blocks` blocks with parameters drawn from `seed`, in eval mode.
struct TinyModelOnFamily {
  testing::ScopedThreads one_thread{1};
  bio::TrainingFamily fam = attend::testing::synthetic_family(8, 5, 6);
  bio::ContactModel model;
  TinyModelOnFamily(int64_t blocks, uint64_t seed) : model(tiny_options(blocks)) {
    randomize_parameters(model, seed);
    model.eval();
  }
};

/// Factored attention with `heads` heads of width 4, stopped after `iterations`.
bio::FactoredOptions small_factored(int64_t heads, int64_t iterations) {
  bio::FactoredOptions options;
  options.n_heads = heads;
  options.c_hidden = 4;
  options.optimizer.max_iterations = iterations;
  return options;
}

/// The attention weights `forward(&weights)` writes, checked to leave the output as it is
/// without them (bit for bit).
Tensor weights_read_without_change(const std::function<Tensor(Tensor*)>& forward) {
  Tensor weights;
  const Tensor with = forward(&weights);
  CHECK(bitwise_equal(with, forward(nullptr)));
  return weights;
}

}  // namespace

TEST_CASE("head contact scores: each head's map symmetrised, diagonal 0, then APC", "[bio]") {
  const int64_t H = 3, L = 7;
  const Tensor attention = attend::testing::random_tensor({H, L, L}, 5, 0.0f, 1.0f);  // not symmetric
  const Tensor scores = bio::head_contact_scores(attention);
  REQUIRE(scores.shape() == (Shape{H, L, L}));
  for (int64_t h = 0; h < H; ++h) {
    Vec symmetric(L * L, 0.0);
    for (int64_t i = 0; i < L; ++i)
      for (int64_t j = 0; j < L; ++j)
        if (i != j) symmetric[i * L + j] = 0.5 * (attention[(h * L + i) * L + j] + attention[(h * L + j) * L + i]);
    const Vec want = reference_apc(symmetric, L);
    for (int64_t e = 0; e < L * L; ++e) CHECK(scores[h * L * L + e] == Approx(want[e]).margin(1e-6));
  }
  CHECK_THROWS_AS(bio::head_contact_scores(Tensor({2, 3, 4})), Error);
}

TEST_CASE("factored head maps: the fitted attention is softmax(Q K^T / sqrt(d)) over j != i, per head", "[bio]") {
  bio::Alignment a = attend::testing::sample_alignment(attend::testing::planted_model(3), 200, 4);
  for (uint8_t& code : a.codes) code = code == bio::kGapCode ? 0 : code;  // gaps only where put below
  a.codes[5 * a.length + 2] = a.codes[7 * a.length + 9] = bio::kGapCode;
  bio::FactoredOptions options = small_factored(3, 5);
  options.filter.max_column_gap_fraction = 0.0;  // drops columns 2 and 9
  const bio::FactoredResult fit = bio::predict_contacts_factored(a, options);
  const auto kept = static_cast<int64_t>(fit.columns.size());
  REQUIRE(kept == a.length - 2);
  const int64_t H = 3, d = 4, L = a.length;
  REQUIRE(fit.query.shape() == (Shape{H, kept, d}));
  REQUIRE(fit.attention.shape() == (Shape{H, kept, kept}));
  for (int64_t h = 0; h < H; ++h) {
    const Vec want = reference_softmax_rows(kept, [&](int64_t i, int64_t j) {
      if (i == j) return -1e300;
      double dot = 0.0;
      for (int64_t t = 0; t < d; ++t) dot += fit.query[(h * kept + i) * d + t] * fit.key[(h * kept + j) * d + t];
      return dot / std::sqrt(double(d));
    });
    for (int64_t e = 0; e < kept * kept; ++e) CHECK(fit.attention[h * kept * kept + e] == Approx(want[e]).margin(1e-6));
  }

  const bio::HeadContactMaps maps = bio::factored_head_maps(fit, L);
  REQUIRE(maps.attention.shape() == (Shape{H, L, L}));
  CHECK(maps.names == std::vector<std::string>{"head 0", "head 1", "head 2"});
  const Tensor fitted = bio::head_contact_scores(fit.attention);  // [H, kept, kept]
  for (int64_t h = 0; h < H; ++h) {
    float lowest = 1e30f;
    for (int64_t i = 0; i < kept; ++i)
      for (int64_t j = 0; j < kept; ++j) {
        const int64_t ci = fit.columns[i], cj = fit.columns[j];
        CHECK(maps.attention[(h * L + ci) * L + cj] == fit.attention[(h * kept + i) * kept + j]);
        if (i == j) continue;
        CHECK(maps.scores[(h * L + ci) * L + cj] == fitted[(h * kept + i) * kept + j]);
        lowest = std::min(lowest, fitted[(h * kept + i) * kept + j]);
      }
    for (int64_t c = 0; c < L; ++c) {  // a dropped column: no attention, the head's lowest score
      if (std::find(fit.columns.begin(), fit.columns.end(), c) != fit.columns.end()) continue;
      const int64_t other = c == fit.columns[0] ? fit.columns[1] : fit.columns[0];
      CHECK(maps.attention[(h * L + c) * L + other] == 0.0f);
      CHECK(maps.scores[(h * L + c) * L + other] == lowest);
    }
  }
}

TEST_CASE("msa row attention weights match AF2 Alg. 7's softmax, and reading them changes nothing", "[bio]") {
  const int64_t S = 3, N = 6, cm = 5, cz = 4, H = 2, ch = 3;
  bio::MsaRowAttention module(bio::MsaRowAttentionOptions{{ch, H, 0, 8}, cm, cz});
  randomize_parameters(module, 40);
  const Tensor m = attend::testing::random_tensor({S, N, cm}, 1), z = attend::testing::random_tensor({N, N, cz}, 2);
  const Tensor weights =
      weights_read_without_change([&](Tensor* out) { return module.forward(Var(m), Var(z), out).value(); });
  REQUIRE(weights.shape() == (Shape{S, H, N, N}));
  const std::map<std::string, Tensor> p = values_of(module);
  const Vec want = reference_row_attention(to_vec(m), to_vec(z), S, N, cm, cz, H, ch, Params{&p, ""});
  for (int64_t e = 0; e < weights.numel(); ++e) CHECK(weights[e] == Approx(want[e]).margin(2e-6));
}

TEST_CASE("triangle attention weights match AF2 Alg. 13 and 14's softmax, and reading them changes nothing", "[bio]") {
  const int64_t N = 5, cz = 4, H = 2, ch = 3;
  for (const bool starting : {true, false}) {
    CAPTURE(starting);
    bio::TriangleAttention module(bio::TriangleAttentionOptions{{ch, H, 0, 9}, cz}, starting);
    randomize_parameters(module, 41);
    const Tensor z = attend::testing::random_tensor({N, N, cz}, 3);
    const Tensor weights = weights_read_without_change([&](Tensor* out) { return module.forward(Var(z), out).value(); });
    REQUIRE(weights.shape() == (Shape{N, H, N, N}));
    const std::map<std::string, Tensor> p = values_of(module);
    const Vec want = reference_triangle_weights(to_vec(z), N, cz, H, ch, starting, Params{&p, ""});
    for (int64_t e = 0; e < weights.numel(); ++e) CHECK(weights[e] == Approx(want[e]).margin(2e-6));
  }
}

TEST_CASE("contact model triangle maps: one [W, W] map per block, node and head, rows summing to 1", "[bio]") {
  TinyModelOnFamily setup(2, 71);
  bio::ContactModel& model = setup.model;
  const bio::ContactModelInput in = bio::whole_family_input(model, setup.fam.features);
  const int64_t W = in.msa.dim(1), H = model.options().block.n_heads_pair;
  const Tensor maps = model.triangle_attention_maps(in);  // [2, 2, H, W, W]
  REQUIRE(maps.shape() == (Shape{2, 2, H, W, W}));
  for (int64_t row = 0; row < 2 * 2 * H * W; ++row) {  // every query's weights sum to 1
    double sum = 0.0;
    for (int64_t k = 0; k < W; ++k) sum += maps[row * W + k];
    CHECK(sum == Approx(1.0).epsilon(1e-5));
  }
  // The starting and ending maps differ (one reads the rows of z, the other its columns).
  double difference = 0.0;
  for (int64_t e = 0; e < H * W * W; ++e) difference += std::abs(maps[e] - maps[H * W * W + e]);
  CHECK(difference > 1e-3);
  // Reading the weights changes nothing: the logits are those of forward.
  const Tensor before = model.forward(in).value();
  model.triangle_attention_maps(in);
  CHECK(bitwise_equal(before, model.forward(in).value()));
}

TEST_CASE("contact model row-attention maps: block 0's row attention at the embedding, averaged over rows", "[bio]") {
  TinyModelOnFamily setup(2, 70);
  bio::ContactModel& model = setup.model;
  const bio::TrainingFamily& fam = setup.fam;
  Rng rng(0);
  const bio::ContactModelInput in = bio::make_model_input(fam.features, 0, 8, bio::sample_rows(5, 3, rng));
  const Tensor maps = model.msa_row_attention_maps(in);
  const int64_t S = 3, W = 8, H = 2, cm = 4, cz = 4, r = 3;
  REQUIRE(maps.shape() == (Shape{2, H, W, W}));
  // The embedding (AF2 Alg. 3 and 4) by hand, then block 0's row attention.
  const std::map<std::string, Tensor> p = values_of(model);
  const Params all{&p, ""};
  Vec m = linear(to_vec(in.msa), bio::kMsaFeatures, all.sub("msa_embed"), true);  // [S, W, c_m]
  const Vec t = linear(to_vec(in.target), bio::kTargetFeatures, all.sub("target_msa"), true);
  for (int64_t s = 0; s < S; ++s)
    for (int64_t e = 0; e < W * cm; ++e) m[s * W * cm + e] += t[e];
  const Vec left = linear(to_vec(in.target), bio::kTargetFeatures, all.sub("target_left"), true);
  const Vec right = linear(to_vec(in.target), bio::kTargetFeatures, all.sub("target_right"), true);
  const Vec pair = linear(to_vec(in.pair), bio::kPairFeatures, all.sub("pair_embed"), true);
  const Vec relpos = all("relpos");
  Vec z(W * W * cz);
  for (int64_t i = 0; i < W; ++i)
    for (int64_t j = 0; j < W; ++j) {
      const int64_t bin = std::clamp<int64_t>(in.positions[i] - in.positions[j], -r, r) + r;
      for (int64_t c = 0; c < cz; ++c) {
        z[(i * W + j) * cz + c] = left[i * cz + c] + right[j * cz + c] + relpos[bin * cz + c] + pair[(i * W + j) * cz + c];
      }
    }
  const Vec rows = reference_row_attention(m, z, S, W, cm, cz, H, 2, all.sub("evoformer").sub("0").sub("msa_row_attention"));
  for (int64_t e = 0; e < H * W * W; ++e) {
    const double mean = (rows[e] + rows[H * W * W + e] + rows[2 * H * W * W + e]) / 3.0;
    CHECK(maps[e] == Approx(mean).margin(2e-6));
  }
  for (int64_t row = 0; row < 2 * H * W; ++row) {  // block 1's too: every query's weights sum to 1
    double sum = 0.0;
    for (int64_t j = 0; j < W; ++j) sum += maps[row * W + j];
    CHECK(sum == Approx(1.0).epsilon(1e-5));
  }

  const bio::HeadContactMaps heads = bio::evoformer_head_maps(model, in);
  const int64_t H_pair = model.options().block.n_heads_pair, count = 4 + 2 * 2 * H_pair;
  REQUIRE(static_cast<int64_t>(heads.names.size()) == count);
  CHECK(std::vector<std::string>(heads.names.begin(), heads.names.begin() + 4) ==
        std::vector<std::string>{"block 0 head 0", "block 0 head 1", "block 1 head 0", "block 1 head 1"});
  CHECK(heads.names[4] == "block 0 triangle start head 0");
  CHECK(heads.names[4 + H_pair] == "block 0 triangle end head 0");
  CHECK(heads.names.back() == "block 1 triangle end head " + std::to_string(H_pair - 1));
  const Tensor triangles = model.triangle_attention_maps(in);  // [2, 2, H_pair, W, W]
  for (int64_t e = 0; e < 4 * W * W; ++e) CHECK(heads.attention[e] == maps[e]);
  for (int64_t e = 0; e < triangles.numel(); ++e) CHECK(heads.attention[4 * W * W + e] == triangles[e]);
  CHECK(bitwise_equal(heads.scores, bio::head_contact_scores(heads.attention)));
  const std::vector<bio::ContactPrecision> precision = bio::evaluate_heads(heads, fam.truth);
  REQUIRE(static_cast<int64_t>(precision.size()) == count);
  const std::size_t best = bio::best_head(precision);
  for (const bio::ContactPrecision& q : precision) CHECK(q.long_range.top_l5 <= precision[best].long_range.top_l5);
}

TEST_CASE("head maps are bit-identical for 1 and 2 threads", "[bio]") {
  const bio::TrainingFamily fam = attend::testing::synthetic_family(20, 6, 9);
  const bio::Alignment a = attend::testing::sample_alignment(attend::testing::planted_model(7), 120, 3);
  const testing::ScopedThreads restore(num_threads());
  auto run = [&](int threads) {
    set_num_threads(threads);
    bio::ContactModel model(tiny_options(1));
    randomize_parameters(model, 3);
    model.eval();
    return std::make_pair(bio::evoformer_head_maps(model, bio::whole_family_input(model, fam.features)).scores,
                          bio::factored_head_maps(bio::predict_contacts_factored(a, small_factored(2, 3)), a.length).scores);
  };
  const auto one = run(1);
  const auto two = run(2);
  CHECK(bitwise_equal(one.first, two.first));
  CHECK(bitwise_equal(one.second, two.second));
}
