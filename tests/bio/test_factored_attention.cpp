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
#include "attend/core/error.hpp"
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

TEST_CASE("factored couplings: J is the symmetric part of sum_h softmax(Q K^T / sqrt(d)) V_h, diagonal masked", "[bio]") {
  const int64_t H = 3, L = 6, d = 4;
  const Tensor q = random_tensor({1, H, L, d}, 1), k = random_tensor({1, H, L, d}, 2);
  const Tensor fields = random_tensor({L, PottsObjective::kFieldStates}, 4);
  const Alignment a = random_alignment(5, L, 5);
  const PottsObjective objective(a, std::vector<float>(5, 1.0f), {0.01, 0.5});
  // A_h[i, j] in double, the reference's attention.
  auto attention = [&](int64_t h, int64_t i, int64_t j) {
    std::vector<double> logit(static_cast<std::size_t>(L));
    double z = 0.0;
    for (int64_t m = 0; m < L; ++m) {
      double s = 0.0;
      for (int64_t c = 0; c < d; ++c) s += double(q.at({0, h, i, c})) * k.at({0, h, m, c});
      logit[m] = m == i ? 0.0 : std::exp(s / std::sqrt(double(d)));
      z += logit[m];
    }
    return logit[j] / z;
  };
  Tensor mixing;
  {
    NoGradGuard no_grad;
    mixing = factored_attention(Var(q), Var(k)).value();  // [L * L, H]
  }
  for (const int S : {kNumStates, kNumAminoAcids}) {
    INFO("value states " << S);
    const Tensor v = random_tensor({H, S, S}, 3);
    PseudoLikelihoodWorkspace workspace;
    mixture_parameters(objective, fields, mixing, v, workspace);
    const std::vector<float>& x = workspace.parameters;
    for (int64_t i = 0; i < L; ++i) {
      for (int c = 0; c < PottsObjective::kFieldStates; ++c) CHECK(x[objective.field_index(i, c)] == fields.at({i, c}));
      for (int64_t j = i + 1; j < L; ++j) {
        double ref[kNumStates][kNumStates] = {};  // (W_ij(a, b) + W_ji(b, a)) / 2
        for (int64_t h = 0; h < H; ++h) {
          const double a_ij = attention(h, i, j), a_ji = attention(h, j, i);
          for (int p = 0; p < S; ++p)
            for (int r = 0; r < S; ++r) ref[p][r] += 0.5 * (a_ij * v.at({h, p, r}) + a_ji * v.at({h, r, p}));
        }
        for (int p = 0; p < kNumStates; ++p)
          for (int r = 0; r < kNumStates; ++r) CHECK(x[objective.coupling_index(i, j, p, r)] == Approx(ref[p][r]).margin(1e-5));
      }
    }
  }
}

TEST_CASE("the mixture pseudo-likelihood op equals PottsObjective on symmetric couplings", "[bio]") {
  const int64_t L = 5;
  const Alignment a = random_alignment(9, L, 4);
  std::vector<float> weights(9);
  for (std::size_t n = 0; n < weights.size(); ++n) weights[n] = 0.3f + 0.1f * static_cast<float>(n);
  PottsObjective objective(a, weights, {0.01, 0.5});
  std::vector<float> x = objective.initial_parameters();
  Rng rng(3);
  for (auto& v : x) v += 0.2f * rng.normal();
  std::vector<float> grad(x.size());
  const double f = objective.evaluate(x.data(), grad.data());

  Tensor h({L, 20});
  for (int64_t i = 0; i < L; ++i)
    for (int c = 0; c < 20; ++c) h[i * 20 + c] = x[objective.field_index(i, c)];
  // One head per pair (one-hot mixing), so the value matrices are the couplings W themselves.
  Tensor mixing({L * L, L * L});  // [L * L, H = L * L]
  for (int64_t p = 0; p < L * L; ++p) mixing[p * L * L + p] = 1.0f;
  Tensor w = objective.couplings(x.data());  // [L, L, 21, 21], symmetric
  Var fields(h, true), mix(mixing, true), value(w.reshaped({L * L, kNumStates, kNumStates}), true);
  PseudoLikelihoodWorkspace workspace;
  double f_op = 0.0;
  Var loss = mixture_pseudo_likelihood(objective, fields, mix, value, workspace, &f_op);
  CHECK(f_op == f);
  loss.backward();
  for (int64_t i = 0; i < L; ++i)
    for (int c = 0; c < 20; ++c) CHECK(fields.grad()[i * 20 + c] == grad[objective.field_index(i, c)]);
  // dW_ij + dW_ji^T is the gradient of the pair's one parameter block; the diagonal gets none.
  const Tensor& dw = value.grad();  // [L * L, 21, 21]
  for (int64_t i = 0; i < L; ++i) {
    for (int s = 0; s < kNumStates; ++s) CHECK(dw.at({i * L + i, s, s}) == 0.0f);
    for (int64_t j = i + 1; j < L; ++j)
      for (int s = 0; s < kNumStates; s += 3)
        for (int t = 0; t < kNumStates; t += 2) {
          const float sum = dw.at({i * L + j, s, t}) + dw.at({j * L + i, t, s});
          CHECK(sum == Approx(grad[objective.coupling_index(i, j, s, t)]).margin(1e-6));
        }
  }
  // The same workspace serves the next evaluation (here at other couplings) and gives what a
  // fresh one gives.
  Var value2(random_tensor({L * L, kNumStates, kNumStates}, 9), true);
  PseudoLikelihoodWorkspace fresh;
  double reused = 0.0, first = 0.0;
  Var l1 = mixture_pseudo_likelihood(objective, Var(h), Var(mixing), value2, workspace, &reused);
  l1.backward();
  const Tensor g_reused = value2.grad();
  value2.zero_grad();
  Var l2 = mixture_pseudo_likelihood(objective, Var(h), Var(mixing), value2, fresh, &first);
  l2.backward();
  CHECK(reused == first);
  CHECK(bitwise_equal(g_reused, value2.grad()));
}

TEST_CASE("factored attention pseudo-likelihood passes the finite-difference gradient check", "[bio][grad]") {
  const int64_t L = 5, H = 2, d = 3;
  const Alignment a = random_alignment(6, L, 11);
  PottsObjective objective(a, std::vector<float>(6, 0.25f), {0.01, 0.3});
  PseudoLikelihoodWorkspace workspace;
  const auto f = [&](const std::vector<Var>& in) {
    return mixture_pseudo_likelihood(objective, in[0], factored_attention(in[1], in[2]), in[3], workspace);
  };
  for (const int S : {kNumStates, kNumAminoAcids}) {
    INFO("value states " << S);
    const attend::testing::GradCheckResult r =
        check_gradients(f, {random_tensor({L, 20}, 1), random_tensor({1, H, L, d}, 2), random_tensor({1, H, L, d}, 3),
                            random_tensor({H, S, S}, 4, -2.0f, 2.0f)});
    INFO(r.report);
    CHECK(r.ok);
  }
}

TEST_CASE("20-state values leave the gap out of the couplings: equal to 21 states with a zero gap row and column", "[bio]") {
  const int64_t L = 5, H = 2, d = 3;
  const Alignment a = random_alignment(7, L, 12);
  PottsObjective objective(a, std::vector<float>(7, 0.5f), {0.01, 0.3});
  const Tensor h = random_tensor({L, 20}, 5), q = random_tensor({1, H, L, d}, 6), k = random_tensor({1, H, L, d}, 7);
  const Tensor v20 = random_tensor({H, kNumAminoAcids, kNumAminoAcids}, 8);
  Tensor v21({H, kNumStates, kNumStates});  // v20 padded with a zero gap row and column
  for (int64_t hd = 0; hd < H; ++hd)
    for (int s = 0; s < kNumAminoAcids; ++s)
      for (int t = 0; t < kNumAminoAcids; ++t) v21[(hd * kNumStates + s) * kNumStates + t] = v20.at({hd, s, t});
  PseudoLikelihoodWorkspace workspace;
  Var value20(v20, true), value21(v21, true);
  double f20 = 0.0, f21 = 0.0;
  Var l20 = mixture_pseudo_likelihood(objective, Var(h), factored_attention(Var(q), Var(k)), value20, workspace, &f20);
  l20.backward();
  Var l21 = mixture_pseudo_likelihood(objective, Var(h), factored_attention(Var(q), Var(k)), value21, workspace, &f21);
  l21.backward();
  CHECK(f20 == Approx(f21).epsilon(1e-6));
  for (int64_t hd = 0; hd < H; ++hd)
    for (int s = 0; s < kNumAminoAcids; ++s)
      for (int t = 0; t < kNumAminoAcids; ++t)
        CHECK(value20.grad().at({hd, s, t}) == Approx(value21.grad().at({hd, s, t})).margin(1e-5));
  const Tensor mixing = factored_attention(Var(q), Var(k)).value();  // [L * L, H]
  PseudoLikelihoodWorkspace w20, w21;
  mixture_parameters(objective, h, mixing, v20, w20);
  mixture_parameters(objective, h, mixing, v21, w21);
  CHECK(w20.parameters == w21.parameters);
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

TEST_CASE("factored snapshots equal the fits stopped at those iterations, for 20- and 21-state values", "[bio]") {
  const Alignment a = attend::testing::sample_alignment(attend::testing::planted_model(7), 300, 8);
  for (const int S : {kNumAminoAcids, kNumStates}) {
    INFO("value states " << S);
    FactoredOptions options;
    options.n_heads = 4;
    options.c_hidden = 8;
    options.value_states = S;
    options.optimizer.max_iterations = 9;
    options.snapshot_iterations = {3, 6, 100};
    std::vector<std::pair<int, Tensor>> snapshots;
    const PottsResult full = predict_contacts_factored(a, options, {}, [&](int iteration, const Tensor& scores) {
      snapshots.emplace_back(iteration, scores);
    });
    REQUIRE(snapshots.size() == 2);
    CHECK(factored_parameters(options, full)["value_states"] == S);
    options.snapshot_iterations.clear();
    for (const auto& [iteration, scores] : snapshots) {
      options.optimizer.max_iterations = iteration;
      const PottsResult stopped = predict_contacts_factored(a, options);
      CHECK(stopped.iterations == iteration);
      CHECK(bitwise_equal(stopped.scores, scores));
    }
    CHECK_FALSE(bitwise_equal(full.scores, snapshots.back().second));
  }
  FactoredOptions bad;
  bad.value_states = 19;
  CHECK_THROWS_AS(predict_contacts_factored(a, bad), InputError);
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
