#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <set>

#include "attend/bio/alignment.hpp"
#include "attend/bio/alphabet.hpp"
#include "attend/bio/contact_metrics.hpp"
#include "attend/bio/contact_truth.hpp"
#include "attend/bio/potts_predictor.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/random.hpp"
#include "planted_potts.hpp"

using namespace attend;
using namespace attend::bio;
using attend::testing::planted_model;
using attend::testing::PlantedModel;
using attend::testing::sample_alignment;

TEST_CASE("potts recovers planted couplings from a Gibbs-sampled alignment", "[bio]") {
  const PlantedModel model = planted_model(5);
  const Alignment a = sample_alignment(model, 1500, 6);
  int iterations_seen = 0;
  const PottsResult r = predict_contacts_potts(a, {}, [&](const PottsProgress& p) {
    iterations_seen = p.iteration;
  });
  INFO("status " << to_string(r.status) << ", iterations " << r.iterations);
  CHECK(r.iterations >= 1);
  CHECK(iterations_seen == r.iterations);
  CHECK(r.n_eff > 100.0);
  REQUIRE(r.scores.shape() == Shape{model.L, model.L});

  // The three best pairs are exactly the planted ones.
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
  // With a clear margin over the best unplanted pair.
  CHECK(std::get<0>(ranked[2]) > 2.0f * std::get<0>(ranked[3]));
}

TEST_CASE("potts predictions are bit-identical for 1 and 2 threads", "[bio]") {
  const Alignment a = sample_alignment(planted_model(7), 300, 8);
  PottsOptions options;
  options.optimizer.max_iterations = 10;
  const int saved = num_threads();
  set_num_threads(1);
  const PottsResult one = predict_contacts_potts(a, options);
  set_num_threads(2);
  const PottsResult two = predict_contacts_potts(a, options);
  set_num_threads(saved);
  CHECK(one.iterations == two.iterations);
  CHECK(bitwise_equal(one.scores, two.scores));
}

TEST_CASE("potts maps scores back when the filter removes columns", "[bio]") {
  Alignment a = sample_alignment(planted_model(9), 200, 10);
  // Make column 4 all gaps except the query: the column filter removes it.
  for (int64_t n = 1; n < a.num_sequences(); ++n) a.codes[static_cast<std::size_t>(n * a.length + 4)] = kGapCode;
  PottsOptions options;
  options.filter.max_column_gap_fraction = 0.5;
  options.optimizer.max_iterations = 5;
  const PottsResult r = predict_contacts_potts(a, options);
  REQUIRE(r.columns.size() == static_cast<std::size_t>(a.length - 1));
  CHECK(std::find(r.columns.begin(), r.columns.end(), 4) == r.columns.end());
  float lowest = 1e30f;
  for (int64_t i = 0; i < a.length; ++i)
    for (int64_t j = 0; j < a.length; ++j)
      if (i != j && i != 4 && j != 4) lowest = std::min(lowest, r.scores.at({i, j}));
  CHECK(r.scores.at({4, 9}) == lowest);
  CHECK(r.scores.at({4, 4}) == 0.0f);

  const nlohmann::json p = potts_parameters(options, r);
  CHECK(p["max_column_gap_fraction"] == 0.5);
  CHECK(p["num_columns"] == a.length - 1);
  CHECK(p["iterations"] == r.iterations);
  CHECK(p["lambda_pair"] == Approx(0.2 * (a.length - 2)));
}

TEST_CASE("potts regularization rules: CCMpred's fixed strengths and plmDCA's N_eff scaling", "[bio]") {
  PottsOptions options;
  const PottsRegularization ccmpred = potts_regularization(options, 51, 4000.0);
  CHECK(ccmpred.lambda_single == Approx(0.01));
  CHECK(ccmpred.lambda_pair == Approx(0.2 * 50));

  options.regularization = parse_potts_regularization_rule("plmdca");
  CHECK(to_string(options.regularization) == "plmdca");
  // Deep: lambda = 0.01 per sequence, on the summed objective 0.01 N_eff (L plays no part).
  const PottsRegularization deep = potts_regularization(options, 51, 4000.0);
  CHECK(deep.lambda_single == Approx(40.0));
  CHECK(deep.lambda_pair == Approx(40.0));
  // Shallow: the per-sequence lambda rises linearly from 0.01 at N_eff 500 to 0.1 at 0.
  CHECK(potts_regularization(options, 51, 250.0).lambda_pair == Approx(0.055 * 250.0));
  CHECK(potts_regularization(options, 51, 500.0).lambda_pair == Approx(0.01 * 500.0));
  CHECK_THROWS(parse_potts_regularization_rule("gremlin"));
}

TEST_CASE("potts fits with the plmDCA rule use the N_eff-scaled strengths", "[bio]") {
  const Alignment a = sample_alignment(planted_model(5), 1500, 6);
  PottsOptions options;
  options.regularization = PottsRegularizationRule::kPlmdca;
  const PottsResult r = predict_contacts_potts(a, options);
  const double lambda = r.n_eff > 500.0 ? 0.01 : 0.1 - 0.09 * r.n_eff / 500.0;
  CHECK(r.lambda_pair == Approx(lambda * r.n_eff));
  CHECK(r.lambda_single == Approx(lambda * r.n_eff));
  const nlohmann::json p = potts_parameters(options, r);
  CHECK(p["regularization"] == "plmdca");
  CHECK(p["lambda_single"] == Approx(r.lambda_single));
  // The stronger prior still finds the planted pairs first.
  std::vector<std::tuple<float, int64_t, int64_t>> ranked;
  for (int64_t i = 0; i < a.length; ++i)
    for (int64_t j = i + 1; j < a.length; ++j) ranked.emplace_back(r.scores.at({i, j}), i, j);
  std::sort(ranked.rbegin(), ranked.rend());
  const PlantedModel model = planted_model(5);
  std::set<std::pair<int64_t, int64_t>> top;
  for (int k = 0; k < 3; ++k) top.insert({std::get<1>(ranked[k]), std::get<2>(ranked[k])});
  CHECK(top == std::set<std::pair<int64_t, int64_t>>(model.pairs.begin(), model.pairs.end()));
}

TEST_CASE("potts on the shipped 1atzA reaches long-range P@L/5 >= 0.7", "[bio][slow]") {
  const std::string dir = ATTEND_DATA_DIR "/proteins/psicov_subset/";
  const Alignment a = read_alignment(dir + "aln/1atzA.aln.gz");
  const ContactMap truth = read_contacts_tsv(dir + "contacts/1atzA.tsv.gz");
  const PottsResult r = predict_contacts_potts(a);
  const ContactPrecision p = evaluate_contacts(r.scores, truth);
  INFO("P@L/5 " << p.long_range.top_l5 << ", iterations " << r.iterations << ", " << r.seconds << " s");
  CHECK(p.long_range.top_l5 >= 0.7);
}
