// The contact prediction driver (bio::predict_contacts): method names, the input it reads,
// the same scores as the methods called directly, stored scores reused, options a method
// cannot take refused; the truth loader; the four prediction files.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "attend/bio/alignment_h5.hpp"
#include "attend/bio/builtin_layers.hpp"
#include "attend/bio/contact_model.hpp"
#include "attend/bio/contact_predictor.hpp"
#include "attend/bio/contact_readers.hpp"
#include "attend/bio/contact_truth.hpp"
#include "attend/core/error.hpp"
#include "attend/core/registry.hpp"
#include "planted_potts.hpp"
#include "temp_dir.hpp"

using namespace attend;
using namespace attend::bio;
using attend::testing::planted_model;
using attend::testing::sample_alignment;
using attend::testing::TempDir;

namespace {

AlignmentFeatures planted_input() {
  AlignmentFeatures input;
  input.alignment = sample_alignment(planted_model(5), 400, 6);
  return input;
}

bool same_values(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape()) return false;
  for (int64_t i = 0; i < a.numel(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}

}  // namespace

TEST_CASE("contact methods by name, and an unknown name lists the choices", "[bio]") {
  for (ContactMethod m : {ContactMethod::kPotts, ContactMethod::kFactored, ContactMethod::kEvoformer}) {
    CHECK(parse_contact_method(to_string(m)) == m);
  }
  try {
    parse_contact_method("pots");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("choose potts, factored or evoformer") != std::string::npos);
  }
}

TEST_CASE("predict_contacts gives the scores of the method called directly", "[bio]") {
  const AlignmentFeatures input = planted_input();
  ContactPredictorOptions options;
  options.potts.optimizer.max_iterations = 30;
  const ContactPredictorResult potts = predict_contacts(input, "planted", options);
  CHECK(same_values(potts.prediction.scores, predict_contacts_potts(input.alignment, options.potts).scores));
  CHECK(potts.prediction.method == "potts");
  CHECK(potts.prediction.query == input.alignment.sequence(0));
  CHECK_FALSE(potts.scores_were_stored);
  CHECK(potts.prediction.parameters.at("iterations") == potts.fit.iterations);

  options.method = ContactMethod::kFactored;
  options.factored.optimizer.max_iterations = 5;
  const ContactPredictorResult factored = predict_contacts(input, "planted", options);
  CHECK(same_values(factored.prediction.scores, predict_contacts_factored(input.alignment, options.factored).scores));
  CHECK(factored.prediction.method == "factored");
}

TEST_CASE("predict_contacts reuses potts scores stored with the alignment, except for factored", "[bio]") {
  AlignmentFeatures input = planted_input();
  const int64_t L = input.alignment.length;
  input.scores = Tensor({L, L});
  input.scores[1] = 7.0f;
  input.scores_method = "potts";
  input.scores_parameters = {{"num_sequences", 123}, {"iterations", 17}};
  const ContactPredictorResult stored = predict_contacts(input, "planted", {});
  CHECK(stored.scores_were_stored);
  CHECK(same_values(stored.prediction.scores, input.scores));
  CHECK(stored.fit.num_sequences == 123);
  CHECK(stored.fit.iterations == 17);

  ContactPredictorOptions factored;
  factored.method = ContactMethod::kFactored;
  factored.factored.optimizer.max_iterations = 2;
  const ContactPredictorResult fitted = predict_contacts(input, "planted", factored);
  CHECK_FALSE(fitted.scores_were_stored);
  CHECK(fitted.prediction.scores[1] != 7.0f);
}

TEST_CASE("predict_contacts refuses options the method cannot take", "[bio]") {
  const AlignmentFeatures input = planted_input();
  ContactPredictorOptions model_without_evoformer;
  model_without_evoformer.model_path = "model.h5";
  CHECK_THROWS_AS(predict_contacts(input, "planted", model_without_evoformer), InputError);
  ContactPredictorOptions snapshots_without_truth;
  snapshots_without_truth.method = ContactMethod::kFactored;
  snapshots_without_truth.factored.snapshot_iterations = {1};
  CHECK_THROWS_AS(predict_contacts(input, "planted", snapshots_without_truth), InputError);
  ContactPredictorOptions potts_snapshots = snapshots_without_truth;
  potts_snapshots.method = ContactMethod::kPotts;
  const ContactMap truth(input.alignment.length);
  potts_snapshots.truth = &truth;
  CHECK_THROWS_AS(predict_contacts(input, "planted", potts_snapshots), InputError);
}

TEST_CASE("predict_contacts runs the shipped evoformer model on the potts scores", "[bio]") {
  const AlignmentFeatures input = planted_input();
  Registry registry;
  register_bio_layers(registry);
  ContactPredictorOptions options;
  options.method = ContactMethod::kEvoformer;
  options.model_path = std::string(ATTEND_DATA_DIR) + "/models/contact_evoformer.h5";
  options.registry = &registry;
  options.potts.optimizer.max_iterations = 20;
  const ContactPredictorResult r = predict_contacts(input, "planted", options);
  const int64_t L = input.alignment.length;
  REQUIRE(r.prediction.scores.shape() == Shape{L, L});
  for (int64_t i = 0; i < L * L; ++i) {
    CHECK(r.prediction.scores[i] >= 0.0f);
    CHECK(r.prediction.scores[i] < 1.0f);
  }
  CHECK(r.prediction.parameters.at("model") == options.model_path);
  CHECK_FALSE(same_values(r.prediction.scores, r.fit.scores));  // probabilities, not the Potts scores
  // A file that is not a contact model is named in the error.
  TempDir dir;
  std::ofstream(dir.file("not_a_model.h5")) << "plain text";
  CHECK_THROWS_AS(load_contact_model(dir.file("not_a_model.h5"), registry), InputError);
}

TEST_CASE("read_contact_input and predict_contacts refuse alignments of fewer than 3 columns", "[bio]") {
  TempDir dir;
  std::ofstream(dir.file("short.fasta")) << ">q\nAC\n>s\nAD\n";
  CHECK_THROWS_AS(read_contact_input(dir.file("short.fasta")), InputError);
  std::ofstream(dir.file("ok.fasta")) << ">q\nACDE\n>s\nADDE\n";
  CHECK(read_contact_input(dir.file("ok.fasta")).alignment.length == 4);
  AlignmentFeatures rows;  // input from elsewhere (the Python module's aligned rows): the same check
  rows.alignment = alignment_from_rows({"AC", "AD"}, "rows");
  CHECK_THROWS_AS(predict_contacts(rows, "rows", {}), InputError);
}

TEST_CASE("load_contact_truth reads a TSV of the right length, and nothing without a source", "[bio]") {
  TempDir dir;
  std::ofstream(dir.file("truth.tsv")) << "#L 5\n1 5 4.0 1\n1 4 12.0 0\n";
  std::vector<std::string> warnings;
  CHECK_FALSE(load_contact_truth({}, "ACDEF", 5, "pred.h5", warnings).has_value());
  const std::optional<ContactMap> truth = load_contact_truth({.pdb = "", .chain = "", .tsv = dir.file("truth.tsv")}, "ACDEF", 5, "pred.h5", warnings);
  REQUIRE(truth.has_value());
  CHECK(truth->length() == 5);
  CHECK(warnings.empty());
  try {
    load_contact_truth({.pdb = "", .chain = "", .tsv = dir.file("truth.tsv")}, "ACDEFG", 6, "pred.h5", warnings);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.file() == dir.file("truth.tsv"));
    CHECK(std::string(e.what()).find("pred.h5 has 6") != std::string::npos);
  }
}

TEST_CASE("write_contact_prediction writes the four files, read back the same", "[bio]") {
  TempDir dir;
  ContactPrediction p;
  p.query = "ACDEFGHIK";
  p.method = "potts";
  p.scores = Tensor({9, 9});
  for (int64_t i = 0; i < 9; ++i)
    for (int64_t j = 0; j < 9; ++j) p.scores[i * 9 + j] = static_cast<float>((i + 1) * (j + 1) % 7);
  write_contact_prediction(dir.file("out"), p, "target");
  for (const std::string& suffix : contact_prediction_suffixes()) CHECK(std::filesystem::exists(dir.file("out" + suffix)));
  CHECK(dir.entries().size() == contact_prediction_suffixes().size());
  std::string query;
  CHECK(same_values(read_prediction(dir.file("out.h5"), &query), p.scores));
  CHECK(query == p.query);
}
