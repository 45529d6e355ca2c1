// Integrated gradients of one contact's logit against the contact model's MSA and pair
// features, the residue-pair map, the choice of the explained pair, and explain_contacts'
// checks of its options.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>
#include <tuple>

#include "attend/bio/contact_attribution.hpp"
#include "attend/bio/contact_explanation.hpp"
#include "attend/bio/contact_model.hpp"
#include "attend/core/error.hpp"
#include "attend/core/parallel.hpp"
#include "evoformer_reference.hpp"
#include "grad_check.hpp"
#include "scoped_threads.hpp"
#include "synthetic_family.hpp"
#include "tiny_contact_model.hpp"

using namespace attend;

namespace {

PathSteps midpoint(int steps) { return PathSteps{QuadratureKind::kMidpoint, steps}; }

// A one-block model whose parameters are all random and of order one, so the MSA features
// matter (the untrained model's zero head would make the logit the potts skip path alone, and
// small weights leave the MSA's effect at 1e-3).
std::unique_ptr<bio::ContactModel> random_model(uint64_t seed) {
  auto model = std::make_unique<bio::ContactModel>(testing::tiny_contact_model_options(1, seed));
  evoref::randomize_parameters(*model, seed, 1.0f);
  model->eval();
  return model;
}

bio::ContactModelInput family_input(const bio::ContactModel& model, int64_t L, uint64_t seed) {
  return bio::whole_family_input(model, attend::testing::synthetic_family(L, 5, seed).features);
}

}  // namespace

TEST_CASE("contact logit gradient with respect to the MSA and pair features matches finite differences", "[bio][grad]") {
  const testing::ScopedThreads one_thread(1);
  const auto model = random_model(3);
  const bio::ContactModelInput in = family_input(*model, 6, 2);
  attend::testing::GradCheckOptions go = evoref::evo_grad_options();
  go.max_checks = 24;
  const attend::testing::GradCheckResult r = attend::testing::check_gradients(
      [&](const std::vector<Var>& x) { return model->forward_from_features(x[0], x[1], in); }, {in.msa, in.pair}, go);
  INFO(r.report);
  CHECK(r.ok);
}

TEST_CASE("contact integrated gradients: completeness holds, sums agree, more steps close the gap", "[bio]") {
  const testing::ScopedThreads one_thread(1);
  const auto model = random_model(5);
  const bio::ContactModelInput in = family_input(*model, 9, 4);
  // Explain the pair whose logit the two inputs move most.
  bio::ContactModelInput zero = in;
  zero.msa = Tensor(in.msa.shape(), 0.0f);
  zero.pair = Tensor(in.pair.shape(), 0.0f);
  const Tensor with = model->forward(in).value(), without = model->forward(zero).value();  // [9, 9]
  int64_t i = 0, j = 1;
  for (int64_t a = 0; a < 9; ++a)
    for (int64_t b = a + 1; b < 9; ++b)
      if (std::abs(with[a * 9 + b] - without[a * 9 + b]) > std::abs(with[i * 9 + j] - without[i * 9 + j])) std::tie(i, j) = std::tie(a, b);
  int64_t last_step = 0;
  const bio::ContactAttribution ig = bio::integrated_gradients_contact(*model, in, i, j, midpoint(64), [&](int64_t d) { last_step = d; });
  CHECK(last_step == 64);
  REQUIRE(ig.msa_attribution.shape() == in.msa.shape());
  REQUIRE(ig.pair_attribution.shape() == in.pair.shape());
  REQUIRE(ig.pair_map.shape() == (Shape{9, 9}));
  REQUIRE(ig.per_sequence.size() == 3);
  REQUIRE(ig.per_column.size() == 9);
  const double change = ig.value - ig.baseline_value;
  INFO("f(x) " << ig.value << ", f(0) " << ig.baseline_value << ", gap " << ig.completeness_gap);
  REQUIRE(std::abs(change) > 0.1);  // the two inputs move this model's logit
  CHECK(std::abs(ig.completeness_gap) < 0.01 * std::abs(change));
  double msa = 0.0, pair = 0.0, map = 0.0;
  for (int64_t e = 0; e < ig.msa_attribution.numel(); ++e) msa += ig.msa_attribution[e];
  for (int64_t e = 0; e < ig.pair_attribution.numel(); ++e) pair += ig.pair_attribution[e];
  for (int64_t e = 0; e < ig.pair_map.numel(); ++e) map += ig.pair_map[e];
  // Both inputs carry a share of the change in this random model.
  CHECK(std::abs(msa) > 1e-3);
  CHECK(std::abs(pair) > 1e-3);
  CHECK(ig.msa_total == Approx(msa).margin(1e-9));
  CHECK(ig.pair_total == Approx(pair).margin(1e-9));
  CHECK(map == Approx(pair).margin(1e-5));
  CHECK(std::accumulate(ig.per_sequence.begin(), ig.per_sequence.end(), 0.0) == Approx(msa).margin(1e-9));
  CHECK(std::accumulate(ig.per_column.begin(), ig.per_column.end(), 0.0) == Approx(msa).margin(1e-9));
  // The gap covers both inputs (the totals of the float attributions).
  CHECK(ig.completeness_gap == Approx(msa + pair - change).margin(1e-6));
  double pairs_total = 0.0;
  const std::vector<bio::ResiduePairAttribution> pairs = bio::residue_pair_attributions(ig);
  CHECK(pairs.size() == 45);  // i <= j of 9 residues
  for (const bio::ResiduePairAttribution& p : pairs) pairs_total += p.score;
  CHECK(pairs_total == Approx(pair).margin(1e-5));
  CHECK(pairs[1].i == 0);
  CHECK(pairs[1].j == 1);
  CHECK(pairs[1].score == Approx(ig.pair_map[0 * 9 + 1] + ig.pair_map[1 * 9 + 0]).margin(1e-9));
  // f(x) is the model's logit; f(0) the logit with the MSA and pair features zeroed.
  CHECK(ig.value == Approx(with[i * 9 + j]).margin(1e-6));
  CHECK(ig.baseline_value == Approx(without[i * 9 + j]).margin(1e-6));

  const bio::ContactAttribution coarse = bio::integrated_gradients_contact(*model, in, i, j, midpoint(2));
  CHECK(std::abs(coarse.completeness_gap) > std::abs(ig.completeness_gap));
  // A gap bound refines the coarse rule until the gap is within it.
  const bio::ContactAttribution refined =
      bio::integrated_gradients_contact(*model, in, i, j, PathSteps{QuadratureKind::kMidpoint, 2, 0.01, 2000});
  CHECK(refined.steps > 2);
  CHECK(std::abs(refined.completeness_gap) <= 0.01 * std::abs(refined.value - refined.baseline_value));
  CHECK_THROWS_AS(bio::integrated_gradients_contact(*model, in, 7, 1, midpoint(2)), Error);
  CHECK_THROWS_AS(bio::integrated_gradients_contact(*model, in, 1, 9, midpoint(2)), Error);
}

TEST_CASE("contact integrated gradients are bit-identical for 1 and 2 threads", "[bio]") {
  const testing::ScopedThreads restore(num_threads());
  auto run = [](int threads) {
    set_num_threads(threads);
    const auto model = random_model(8);
    return bio::integrated_gradients_contact(*model, family_input(*model, 30, 6), 2, 28, midpoint(3));
  };
  const bio::ContactAttribution one = run(1), two = run(2);
  CHECK(bitwise_equal(one.msa_attribution, two.msa_attribution));
  CHECK(bitwise_equal(one.pair_attribution, two.pair_attribution));
  CHECK(one.value == two.value);
  CHECK(one.completeness_gap == two.completeness_gap);
}

TEST_CASE("contact integrated gradients give zero to the pair channels the model ignores", "[bio]") {
  const testing::ScopedThreads one_thread(1);
  bio::ContactModelOptions options = testing::tiny_contact_model_options(1, 12);
  options.neighbour_scores = true;  // four pair channels: the score and its neighbour means
  auto model = std::make_unique<bio::ContactModel>(options);
  evoref::randomize_parameters(*model, 12, 1.0f);
  model->eval();
  const bio::ContactModelInput in = family_input(*model, 9, 7);
  REQUIRE(in.pair.dim(2) == 4);
  // Cut channels 1..3 out of both places the pair input goes: the skip path's weights and the
  // pair embedding's weight rows [in = 4, out = c_z]. The model now reads the score alone.
  int cut = 0;
  for (const auto& [name, v] : model->named_parameters()) {
    Var p = v;
    if (name == "potts_weight") {
      for (int64_t f = 1; f < 4; ++f) p.value()[f] = 0.0f;
      ++cut;
    } else if (name == "pair_embed.weight") {
      for (int64_t e = p.value().dim(1); e < p.value().numel(); ++e) p.value()[e] = 0.0f;
      ++cut;
    }
  }
  REQUIRE(cut == 2);
  const bio::ContactAttribution ig = bio::integrated_gradients_contact(*model, in, 1, 7, midpoint(8));
  double ignored = 0.0, read = 0.0;
  for (int64_t e = 0; e < 81; ++e) {
    read += std::abs(ig.pair_attribution[e * 4]);
    for (int64_t f = 1; f < 4; ++f) ignored += std::abs(ig.pair_attribution[e * 4 + f]);
  }
  CHECK(read > 1e-3);
  CHECK(ignored == 0.0);
  // And with the score cut too, the whole change goes to the MSA input.
  for (const auto& [name, v] : model->named_parameters()) {
    Var p = v;
    if (name == "potts_weight" || name == "pair_embed.weight") p.value() = Tensor(p.shape(), 0.0f);
  }
  const bio::ContactAttribution msa_only = bio::integrated_gradients_contact(*model, in, 1, 7, midpoint(32));
  CHECK(msa_only.pair_total == 0.0);
  REQUIRE(std::abs(msa_only.value - msa_only.baseline_value) > 0.02);
  CHECK(msa_only.msa_total == Approx(msa_only.value - msa_only.baseline_value).epsilon(0.01));
}

TEST_CASE("residue pairs of the pair map: i <= j, both orders summed, ranked by magnitude", "[bio]") {
  bio::ContactAttribution a;
  a.i = 0;
  a.j = 2;
  a.pair_map = Tensor({3, 3}, std::vector<float>{0.5f, 1.0f, -0.25f,   //
                                                 2.0f, -4.0f, 0.0f,    //
                                                 0.5f, 0.125f, 0.0f});
  const std::vector<bio::ResiduePairAttribution> pairs = bio::residue_pair_attributions(a);
  REQUIRE(pairs.size() == 6);
  const std::vector<std::tuple<int64_t, int64_t, double>> expected = {
      {0, 0, 0.5}, {0, 1, 3.0}, {0, 2, 0.25}, {1, 1, -4.0}, {1, 2, 0.125}, {2, 2, 0.0}};
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    CHECK(std::tie(pairs[k].i, pairs[k].j, pairs[k].score) == expected[k]);
  }
  const std::vector<bio::ResiduePairAttribution> ranked = bio::by_magnitude(pairs);
  CHECK(ranked[0].score == -4.0);
  CHECK(ranked[1].score == 3.0);
  CHECK(ranked[2].score == 0.5);
  CHECK(bio::explained_pair_rank(a) == 4);  // (0, 2): 0.25
  a.j = 1;
  CHECK(bio::explained_pair_rank(a) == 2);
}

TEST_CASE("the explained pair: the top-scored pair at least 24 apart, shorter separations when L is small", "[bio]") {
  Tensor scores({30, 30}, 0.0f);
  scores[2 * 30 + 5] = 9.0f;    // close: not long range
  scores[1 * 30 + 29] = 3.0f;   // long range
  scores[0 * 30 + 27] = 3.0f;   // ties with it: the lower i wins
  scores[3 * 30 + 28] = 1.0f;
  CHECK(bio::top_long_range_pair(scores) == std::pair<int64_t, int64_t>{0, 27});
  Tensor small({10, 10}, 0.0f);
  small[1 * 10 + 2] = 5.0f;  // adjacent: below the short range
  small[2 * 10 + 9] = 2.0f;
  CHECK(bio::top_long_range_pair(small) == std::pair<int64_t, int64_t>{2, 9});
  CHECK(bio::top_long_range_pair(Tensor({3, 3}, 0.0f)) == std::pair<int64_t, int64_t>{0, 1});
}

TEST_CASE("explain_contacts refuses potts, a pair for factored and a pair outside the alignment", "[bio]") {
  const bio::TrainingFamily fam = attend::testing::synthetic_family(8, 5, 1);
  bio::AlignmentFeatures input;
  input.alignment = fam.features.alignment;
  bio::ContactExplainOptions o;
  o.method = bio::ContactMethod::kPotts;
  CHECK_THROWS_AS(bio::explain_contacts(input, "x", o), InputError);
  o.method = bio::ContactMethod::kFactored;
  o.pair = std::make_pair(int64_t{0}, int64_t{5});
  CHECK_THROWS_WITH(bio::explain_contacts(input, "x", o), Catch::Contains("--method evoformer"));
  o.method = bio::ContactMethod::kEvoformer;
  o.model_path = "unused.h5";
  Registry registry;
  o.registry = &registry;
  o.pair = std::make_pair(int64_t{0}, int64_t{8});
  CHECK_THROWS_WITH(bio::explain_contacts(input, "x", o), Catch::Contains("1..8"));
  o.pair = std::make_pair(int64_t{3}, int64_t{3});
  CHECK_THROWS_AS(bio::explain_contacts(input, "x", o), InputError);
}
