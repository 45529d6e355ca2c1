#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "attend/bio/alphabet.hpp"
#include "attend/bio/contact_metrics.hpp"
#include "attend/bio/contact_truth.hpp"
#include "attend/bio/factored_attention.hpp"
#include "attend/bio/pseudo_likelihood.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/random.hpp"
#include "grad_check.hpp"
#include "planted_potts.hpp"

using namespace attend;
using namespace attend::bio;
using attend::testing::check_gradients;
using attend::testing::random_tensor;

namespace {

// A random alignment of n sequences over L columns (gaps included).
Alignment random_alignment(int64_t n, int64_t L, uint64_t seed) {
  Rng rng(seed);
  Alignment a;
  a.length = L;
  for (int64_t s = 0; s < n; ++s) {
    a.names.push_back(std::to_string(s));
    for (int64_t i = 0; i < L; ++i) a.codes.push_back(static_cast<uint8_t>(rng.below(kNumStates)));
  }
  return a;
}

}  // namespace

TEST_CASE("factored couplings equal sum_h softmax(Q K^T / sqrt(d)) V_h with the diagonal masked", "[bio]") {
  const int64_t H = 3, L = 6, d = 4;
  const Tensor q = random_tensor({1, H, L, d}, 1), k = random_tensor({1, H, L, d}, 2);
  const Tensor v = random_tensor({H, kNumStates, kNumStates}, 3);
  const Tensor w = factored_couplings(Var(q), Var(k), Var(v)).value();
  REQUIRE(w.shape() == (Shape{L, L, kNumStates, kNumStates}));
  for (int64_t i = 0; i < L; ++i) {
    for (int64_t j = 0; j < L; ++j) {
      double ref[kNumStates][kNumStates] = {};
      for (int64_t h = 0; h < H; ++h) {
        std::vector<double> logit(static_cast<std::size_t>(L));
        double z = 0.0;
        for (int64_t m = 0; m < L; ++m) {
          double s = 0.0;
          for (int64_t c = 0; c < d; ++c) s += double(q.at({0, h, i, c})) * k.at({0, h, m, c});
          logit[m] = m == i ? 0.0 : std::exp(s / std::sqrt(double(d)));
          z += logit[m];
        }
        const double att = logit[j] / z;
        for (int a = 0; a < kNumStates; ++a)
          for (int b = 0; b < kNumStates; ++b) ref[a][b] += att * v.at({h, a, b});
      }
      for (int a = 0; a < kNumStates; a += 5)
        for (int b = 0; b < kNumStates; b += 4) CHECK(w.at({i, j, a, b}) == Approx(ref[a][b]).margin(1e-5));
    }
  }
}

TEST_CASE("the pseudo-likelihood op equals PottsObjective on symmetric couplings", "[bio]") {
  const Alignment a = random_alignment(9, 5, 4);
  std::vector<float> weights(9);
  for (std::size_t n = 0; n < weights.size(); ++n) weights[n] = 0.3f + 0.1f * static_cast<float>(n);
  PottsObjective objective(a, weights, {0.01, 0.5});
  std::vector<float> x = objective.initial_parameters();
  Rng rng(3);
  for (auto& v : x) v += 0.2f * rng.normal();
  std::vector<float> grad(x.size());
  const double f = objective.evaluate(x.data(), grad.data());

  Tensor h({5, 20});
  for (int64_t i = 0; i < 5; ++i)
    for (int c = 0; c < 20; ++c) h[i * 20 + c] = x[objective.field_index(i, c)];
  Var fields(h, true), couplings(objective.couplings(x.data()), true);
  double value = 0.0;
  Var loss = potts_pseudo_likelihood(objective, fields, couplings, &value);
  CHECK(value == f);
  loss.backward();
  for (int64_t i = 0; i < 5; ++i)
    for (int c = 0; c < 20; ++c) CHECK(fields.grad()[i * 20 + c] == grad[objective.field_index(i, c)]);
  // dW_ij + dW_ji^T is the gradient of the pair's one parameter block.
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t j = i + 1; j < 5; ++j)
      for (int s = 0; s < kNumStates; s += 3)
        for (int t = 0; t < kNumStates; t += 2) {
          const float sum = couplings.grad().at({i, j, s, t}) + couplings.grad().at({j, i, t, s});
          CHECK(sum == Approx(grad[objective.coupling_index(i, j, s, t)]).margin(1e-6));
        }
}

TEST_CASE("factored attention pseudo-likelihood passes the finite-difference gradient check", "[bio][grad]") {
  const int64_t L = 5, H = 2, d = 3;
  const Alignment a = random_alignment(6, L, 11);
  PottsObjective objective(a, std::vector<float>(6, 0.25f), {0.01, 0.3});
  const auto f = [&](const std::vector<Var>& in) {
    return potts_pseudo_likelihood(objective, in[0], factored_couplings(in[1], in[2], in[3]));
  };
  const attend::testing::GradCheckResult r =
      check_gradients(f, {random_tensor({L, 20}, 1), random_tensor({1, H, L, d}, 2), random_tensor({1, H, L, d}, 3),
                          random_tensor({H, kNumStates, kNumStates}, 4, -2.0f, 2.0f)});
  INFO(r.report);
  CHECK(r.ok);
}

TEST_CASE("factored attention recovers planted couplings from a Gibbs-sampled alignment", "[bio]") {
  const attend::testing::PlantedModel model = attend::testing::planted_model(5);
  const Alignment a = attend::testing::sample_alignment(model, 1500, 6);
  FactoredOptions options;
  options.n_heads = 4;
  options.c_hidden = 8;
  int iterations_seen = 0;
  const PottsResult r = predict_contacts_factored(a, options, [&](const PottsProgress& p) { iterations_seen = p.iteration; });
  INFO("status " << to_string(r.status) << ", iterations " << r.iterations);
  CHECK(iterations_seen == r.iterations);
  REQUIRE(r.scores.shape() == (Shape{model.L, model.L}));
  std::vector<std::tuple<float, int64_t, int64_t>> ranked;
  for (int64_t i = 0; i < model.L; ++i)
    for (int64_t j = i + 1; j < model.L; ++j) {
      CHECK(r.scores.at({i, j}) == r.scores.at({j, i}));
      ranked.emplace_back(r.scores.at({i, j}), i, j);
    }
  std::sort(ranked.rbegin(), ranked.rend());
  std::set<std::pair<int64_t, int64_t>> top;
  for (int k = 0; k < 3; ++k) top.insert({std::get<1>(ranked[k]), std::get<2>(ranked[k])});
  CHECK(top == std::set<std::pair<int64_t, int64_t>>(model.pairs.begin(), model.pairs.end()));
  CHECK(std::get<0>(ranked[2]) > 2.0f * std::get<0>(ranked[3]));

  const nlohmann::json p = factored_parameters(options, r);
  CHECK(p["n_heads"] == 4);
  CHECK(p["iterations"] == r.iterations);
}

TEST_CASE("factored attention predictions are bit-identical for 1 and 2 threads", "[bio]") {
  const Alignment a = attend::testing::sample_alignment(attend::testing::planted_model(7), 300, 8);
  FactoredOptions options;
  options.n_heads = 4;
  options.c_hidden = 8;
  options.optimizer.max_iterations = 8;
  const int saved = num_threads();
  set_num_threads(1);
  const PottsResult one = predict_contacts_factored(a, options);
  set_num_threads(2);
  const PottsResult two = predict_contacts_factored(a, options);
  set_num_threads(saved);
  CHECK(one.iterations == two.iterations);
  CHECK(one.objective == two.objective);
  CHECK(bitwise_equal(one.scores, two.scores));
  // Another seed starts elsewhere.
  options.seed = 1;
  CHECK_FALSE(bitwise_equal(predict_contacts_factored(a, options).scores, one.scores));
}

TEST_CASE("factored attention on the shipped 1atzA reaches long-range P@L/5 >= 0.6", "[bio][slow]") {
  const std::string dir = ATTEND_DATA_DIR "/proteins/psicov_subset/";
  const Alignment a = read_alignment(dir + "aln/1atzA.aln.gz");
  const ContactMap truth = read_contacts_tsv(dir + "contacts/1atzA.tsv.gz");
  const PottsResult r = predict_contacts_factored(a);
  const ContactPrecision p = evaluate_contacts(r.scores, truth);
  INFO("P@L/5 " << p.long_range.top_l5 << ", iterations " << r.iterations << ", " << r.seconds << " s");
  CHECK(p.long_range.top_l5 >= 0.6);
}
