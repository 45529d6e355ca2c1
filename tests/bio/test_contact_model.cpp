// The supervised contact model: features, forward shape and symmetry, gradients, registry,
// determinism across thread counts.
#include <catch2/catch.hpp>

#include <cmath>

#include "attend/bio/contact_model.hpp"
#include "attend/core/error.hpp"
#include "attend/core/ops/reduction.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/parameter_arena.hpp"
#include "attend/core/registry.hpp"
#include "grad_check.hpp"
#include "scoped_threads.hpp"
#include "synthetic_family.hpp"
#include "tiny_contact_model.hpp"

using namespace attend;

namespace {

bio::ContactModelOptions tiny_options() { return testing::tiny_contact_model_options(); }

}  // namespace

TEST_CASE("contact features: profile rows sum to one, scores standardised, rows sampled", "[bio]") {
  const bio::TrainingFamily fam = testing::synthetic_family(10, 8, 1);
  const bio::FamilyFeatures& f = fam.features;
  for (int64_t i = 0; i < 10; ++i) {
    double s = 0.0;
    for (int k = 0; k < bio::kNumStates; ++k) s += f.profile[i * bio::kNumStates + k];
    CHECK(s == Approx(1.0).epsilon(1e-5));
  }
  double sum = 0.0, sq = 0.0;
  for (int64_t i = 0; i < 10; ++i)
    for (int64_t j = 0; j < 10; ++j) {
      CHECK(f.scores[i * 10 + j] == f.scores[j * 10 + i]);
      if (i == j) continue;
      sum += f.scores[i * 10 + j];
      sq += f.scores[i * 10 + j] * f.scores[i * 10 + j];
    }
  CHECK(sum / 90.0 == Approx(0.0).margin(1e-5));
  CHECK(sq / 90.0 == Approx(1.0).epsilon(1e-4));

  Rng rng(4);
  const std::vector<int64_t> rows = bio::sample_rows(8, 5, rng);
  REQUIRE(rows.size() == 5);
  CHECK(rows[0] == 0);
  for (std::size_t k = 1; k < rows.size(); ++k) CHECK(rows[k] > rows[k - 1]);
  Rng again(4);
  CHECK(bio::sample_rows(8, 5, again) == rows);
  CHECK(bio::sample_rows(3, 5, again) == std::vector<int64_t>{0, 1, 2});

  const bio::ContactModelInput in = bio::make_model_input(f, 2, 5, rows);
  CHECK(in.msa.shape() == Shape{5, 5, bio::kMsaFeatures});
  CHECK(in.target.shape() == Shape{5, bio::kTargetFeatures});
  CHECK(in.pair.shape() == Shape{5, 5, 1});
  CHECK(in.positions == std::vector<int64_t>{2, 3, 4, 5, 6});
  CHECK(in.pair[1 * 5 + 3] == f.scores[3 * 10 + 5]);
  // The one-hot of sequence rows[1] at window residue 0 = alignment column 2.
  const uint8_t code = f.alignment.row(rows[1])[2];
  CHECK(in.msa[(1 * 5 + 0) * bio::kMsaFeatures + code] == 1.0f);
  CHECK(in.msa[(1 * 5 + 0) * bio::kMsaFeatures + bio::kNumStates + 4] == f.profile[2 * bio::kNumStates + 4]);
}

TEST_CASE("contact features: neighbour means of the score, read from the whole family", "[bio]") {
  const bio::TrainingFamily fam = testing::synthetic_family(9, 5, 6);
  const bio::FamilyFeatures& f = fam.features;
  const int64_t L = 9, begin = 2, W = 6;
  Rng rng(1);
  const bio::ContactModelInput in = bio::make_model_input(f, begin, W, bio::sample_rows(5, 3, rng), true);
  REQUIRE(in.pair.shape() == Shape{W, W, bio::kNeighbourPairFeatures});
  // Naive reference: the score at family positions, 0 outside the family.
  auto s = [&](int64_t a, int64_t b) -> double { return a < 0 || a >= L || b < 0 || b >= L ? 0.0 : f.scores[a * L + b]; };
  for (int64_t i = 0; i < W; ++i)
    for (int64_t j = 0; j < W; ++j) {
      const int64_t a = begin + i, b = begin + j;
      const float* got = in.pair.data() + (i * W + j) * bio::kNeighbourPairFeatures;
      const double edge = (s(a - 1, b) + s(a + 1, b) + s(a, b - 1) + s(a, b + 1)) / 4.0;
      const double diag = (s(a - 1, b - 1) + s(a + 1, b + 1)) / 2.0;
      const double anti = (s(a - 1, b + 1) + s(a + 1, b - 1)) / 2.0;
      CHECK(got[0] == f.scores[a * L + b]);
      CHECK(got[1] == Approx(edge).margin(1e-6));
      CHECK(got[2] == Approx(diag).margin(1e-6));
      CHECK(got[3] == Approx(anti).margin(1e-6));
      // Every channel is symmetric.
      const float* mirror = in.pair.data() + (j * W + i) * bio::kNeighbourPairFeatures;
      for (int c = 0; c < bio::kNeighbourPairFeatures; ++c) CHECK(got[c] == Approx(mirror[c]).margin(1e-6));
    }
  // The window's last row reads the family's row begin + W (inside the family, 8 < 9).
  CHECK(in.pair[((W - 1) * W + 0) * bio::kNeighbourPairFeatures + 2] ==
        Approx((s(begin + W - 2, begin - 1) + s(begin + W, begin + 1)) / 2.0).margin(1e-6));
}

TEST_CASE("contact features: a family without scores is an input error", "[bio]") {
  bio::AlignmentFeatures a;
  a.alignment.length = 4;
  a.alignment.names = {"q"};
  a.alignment.codes = {0, 1, 2, 3};
  a.weights = {1.0f};
  CHECK_THROWS_AS(bio::make_family_features(a, "x.h5"), InputError);
}

TEST_CASE("contact model: forward gives symmetric [W, W] logits, the registry rebuilds it", "[bio]") {
  const testing::ScopedThreads one_thread(1);
  const bio::TrainingFamily fam = testing::synthetic_family(9, 6, 2);
  bio::ContactModel model(tiny_options());
  model.eval();
  Rng rng(0);
  const bio::ContactModelInput in = bio::make_model_input(fam.features, 1, 7, bio::sample_rows(6, 3, rng));
  const Tensor logits = model.forward(in).value();
  REQUIRE(logits.shape() == Shape{7, 7});
  for (int64_t i = 0; i < 7; ++i)
    for (int64_t j = 0; j < 7; ++j) {
      CHECK(std::isfinite(logits[i * 7 + j]));
      CHECK(logits[i * 7 + j] == logits[j * 7 + i]);
    }

  Registry registry;
  bio::ContactModel::register_into(registry);
  auto rebuilt = registry.create("contact_model", model.config());
  CHECK(rebuilt->type_name() == "contact_model");
  CHECK(rebuilt->config() == model.config());
  CHECK(rebuilt->parameter_count() == model.parameter_count());
  CHECK_THROWS_AS(registry.create("contact_model", Json{{"c_m", 0}}), InputError);
  CHECK_THROWS_AS(registry.create("contact_model", Json{{"blocks_typo", 1}}), InputError);

  const Tensor p = bio::predict_contact_probabilities(model, fam.features);
  REQUIRE(p.shape() == Shape{9, 9});
  CHECK(p[0] == 0.0f);
  CHECK(p[1] > 0.0f);
  CHECK(p[1] < 1.0f);
}

TEST_CASE("contact model: untrained, the logits are the skip path w_p * score + b", "[bio]") {
  const testing::ScopedThreads one_thread(1);
  const bio::TrainingFamily fam = testing::synthetic_family(9, 6, 5);
  bio::ContactModel model(tiny_options());
  model.eval();
  Rng rng(0);
  const bio::ContactModelInput in = bio::make_model_input(fam.features, 0, 9, bio::sample_rows(6, 3, rng));
  const Tensor logits = model.forward(in).value();  // [9, 9]
  for (int64_t k = 0; k < 81; ++k) CHECK(logits[k] == in.pair[k] * 1.0f + bio::kInitialPottsBias);
  // So the probabilities rank the pairs as the scores do.
  const Tensor p = bio::predict_contact_probabilities(model, fam.features);
  for (int64_t i = 0; i < 9; ++i)
    for (int64_t j = i + 1; j < 9; ++j)
      for (int64_t k = 0; k < 9; ++k)
        for (int64_t l = k + 1; l < 9; ++l) {
          if (fam.features.scores[i * 9 + j] > fam.features.scores[k * 9 + l]) CHECK(p[i * 9 + j] >= p[k * 9 + l]);
        }
}

TEST_CASE("contact model: with neighbour scores, untrained it is potts, and the skip is a symmetric filter", "[bio]") {
  const testing::ScopedThreads one_thread(1);
  const bio::TrainingFamily fam = testing::synthetic_family(9, 6, 7);
  bio::ContactModelOptions o = tiny_options();
  o.neighbour_scores = true;
  bio::ContactModel model(o);
  model.eval();
  Rng rng(0);
  const bio::ContactModelInput in = bio::make_model_input(fam.features, 0, 9, bio::sample_rows(6, 3, rng), true);
  const Tensor logits = model.forward(in).value();  // [9, 9]
  for (int64_t k = 0; k < 81; ++k) {
    CHECK(logits[k] == Approx(in.pair[k * bio::kNeighbourPairFeatures] + bio::kInitialPottsBias).margin(1e-6));
  }
  // Old model files have no "neighbour_scores": they read the score alone.
  Json old_config = model.config();
  old_config.erase("neighbour_scores");
  CHECK_FALSE(bio::ContactModelOptions::from_json(old_config).neighbour_scores);
  CHECK(bio::ContactModelOptions::from_json(model.config()).neighbour_scores);
  // A model reading neighbours refuses an input without them.
  const bio::ContactModelInput plain = bio::make_model_input(fam.features, 0, 9, bio::sample_rows(6, 3, rng));
  CHECK_THROWS_AS(model.forward(plain), Error);

  // Trained skip weights w = (w0, w1, w2, w3) give the 3 x 3 filter of the score map.
  const std::vector<float> w = {0.5f, 2.0f, -1.0f, 0.25f};
  for (auto& [name, p] : model.named_parameters()) {
    if (name == "potts_weight") p.value() = Tensor({4}, w);
  }
  const Tensor filtered = model.forward(in).value();  // [9, 9]
  const Tensor& s = fam.features.scores;
  auto at = [&](int64_t a, int64_t b) -> double { return a < 0 || a >= 9 || b < 0 || b >= 9 ? 0.0 : s[a * 9 + b]; };
  for (int64_t i = 0; i < 9; ++i)
    for (int64_t j = 0; j < 9; ++j) {
      const double expect = w[0] * at(i, j) + w[1] * (at(i - 1, j) + at(i + 1, j) + at(i, j - 1) + at(i, j + 1)) / 4 +
                            w[2] * (at(i - 1, j - 1) + at(i + 1, j + 1)) / 2 +
                            w[3] * (at(i - 1, j + 1) + at(i + 1, j - 1)) / 2 + bio::kInitialPottsBias;
      CHECK(filtered[i * 9 + j] == Approx(expect).margin(1e-5));
      CHECK(filtered[i * 9 + j] == Approx(filtered[j * 9 + i]).margin(1e-6));
    }
  // Prediction reads the same channels.
  const Tensor p = bio::predict_contact_probabilities(model, fam.features);
  CHECK(p[1] == Approx(1.0 / (1.0 + std::exp(-filtered[1]))).margin(1e-6));
}

TEST_CASE("contact model: parameter gradients match finite differences", "[bio][grad]") {
  const bool neighbours = GENERATE(false, true);
  const bio::TrainingFamily fam = testing::synthetic_family(6, 4, 3);
  bio::ContactModelOptions o = tiny_options();
  o.neighbour_scores = neighbours;
  bio::ContactModel model(o);
  model.eval();  // no dropout: a deterministic function of the parameters
  // The head starts at zero, which would hide the trunk's gradients: give it weights.
  bool found = false;
  for (auto& [name, p] : model.named_parameters()) {
    if (name == "potts_weight") p.value() = testing::random_tensor(p.shape(), 22);
    if (name != "head.weight") continue;
    p.value() = testing::random_tensor(p.shape(), 21);
    found = true;
  }
  REQUIRE(found);
  Rng rng(0);
  const bio::ContactModelInput in =
      bio::make_model_input(fam.features, 0, 6, bio::sample_rows(4, 3, rng), neighbours);
  testing::GradCheckOptions go;  // the tolerances of the Evoformer module checks
  go.eps = 5e-3f;
  go.rtol = 3e-2f;
  go.atol = 3e-3f;
  go.max_checks = 6;
  const testing::ScopedThreads one_thread(1);  // many tiny forwards; threads are tested below
  const testing::GradCheckResult r = testing::check_module_gradients(model, [&] { return model.forward(in); }, go);
  INFO(r.report);
  CHECK(r.ok);
}

TEST_CASE("contact model: forward and backward are bit-identical for 1 and 2 threads", "[bio]") {
  const bio::TrainingFamily fam = testing::synthetic_family(8, 5, 4);
  auto run = [&](int threads) {
    set_num_threads(threads);
    bio::ContactModel model(tiny_options());
    model.train();  // dropout on, masks from the seed
    ParameterArena arena(model.named_parameters());
    Rng rng(0);
    const bio::ContactModelInput in = bio::make_model_input(fam.features, 0, 8, bio::sample_rows(5, 3, rng));
    const Var logits = model.forward(in, 99);
    ops::sum(logits).backward();
    return std::make_pair(logits.value(), Tensor({arena.size()}, std::vector<float>(arena.grads().begin(), arena.grads().end())));
  };
  const testing::ScopedThreads restore(num_threads());
  const auto one = run(1);
  const auto two = run(2);
  CHECK(bitwise_equal(one.first, two.first));
  CHECK(bitwise_equal(one.second, two.second));
}

TEST_CASE("contact model: more blocks than the memory holds is an input error before they are built", "[bio]") {
  // Issue #18: contacts train --blocks 2000000000 surfaced as std::bad_alloc.
  bio::ContactModelOptions o = tiny_options();
  o.blocks = 2'000'000'000;
  CHECK_THROWS_WITH(bio::ContactModel(o), Catch::Contains("2000000000 evoformer blocks needs") &&
                                              Catch::Contains("this process may use"));
}
