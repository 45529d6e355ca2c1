// Training the contact model: the loss falls on a tiny synthetic family, a resumed run ends
// with the same bits as an uninterrupted one, family lists report bad entries by file:line.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "attend/bio/contact_metrics.hpp"
#include "attend/bio/contact_training.hpp"
#include "attend/core/error.hpp"
#include "attend/core/parameter_arena.hpp"
#include "attend/core/registry.hpp"
#include "attend/core/training_checkpoint.hpp"
#include "grad_check.hpp"
#include "scoped_threads.hpp"
#include "synthetic_family.hpp"
#include "temp_dir.hpp"

using namespace attend;

namespace {

bio::ContactModelOptions small_options() {
  bio::ContactModelOptions o;
  o.c_m = 4;
  o.c_z = 6;
  o.blocks = 1;
  o.max_relative_position = 4;
  o.msa_depth = 4;
  o.block.c_hidden_msa_att = 2;
  o.block.c_hidden_opm = 2;
  o.block.c_hidden_mul = 4;
  o.block.c_hidden_pair_att = 2;
  o.block.n_heads_msa = 2;
  o.block.n_heads_pair = 2;
  o.block.transition_n = 2;
  o.seed = 5;
  return o;
}

bio::ContactTrainOptions quiet_options(int epochs) {
  bio::ContactTrainOptions t;
  t.epochs = epochs;
  t.crop = 10;
  t.min_separation = 3;
  t.seed = 7;
  t.adam.lr = 1e-2;
  t.progress.mode = ProgressMode::kSilent;
  return t;
}

Tensor parameters_of(const Module& m) {
  std::vector<float> values;
  for (const auto& [name, p] : m.named_parameters()) values.insert(values.end(), p.value().begin(), p.value().end());
  return Tensor({static_cast<int64_t>(values.size())}, values);
}

}  // namespace

TEST_CASE("contact training: the loss falls on a synthetic family", "[bio]") {
  const testing::ScopedThreads one_thread(1);  // thread invariance: test_contact_model.cpp
  const std::vector<bio::TrainingFamily> train = {testing::synthetic_family(14, 8, 1),
                                                  testing::synthetic_family(12, 6, 2)};
  bio::ContactModel model(small_options());
  const TrainResult r = bio::train_contact_model(model, train, {}, quiet_options(25));
  REQUIRE(r.history.size() == 25);
  CHECK(r.history.back().eval.val_loss < 0.7 * r.history.front().eval.val_loss);
  CHECK(r.history.back().train_loss < r.history.front().train_loss);
  CHECK_FALSE(model.is_training());
}

TEST_CASE("contact training: the model file records the options and families, and reads back as the model", "[bio]") {
  const std::vector<bio::TrainingFamily> train = {testing::synthetic_family(12, 6, 3)};
  const std::vector<bio::TrainingFamily> val = {testing::synthetic_family(10, 5, 4)};
  bio::ContactModel model(small_options());
  bio::ContactTrainOptions o = quiet_options(2);
  o.patience = 3;
  const TrainResult r = bio::train_contact_model(model, train, val, o);
  const CheckpointData file = bio::trained_contact_model_file(model, o, r, train, val);
  const Json& record = file.model.at("training");
  // Every option of the list, read back into the same options.
  Json options = record;
  for (const char* key : {"families", "validation", "epochs_run", "best_epoch", "seconds"}) options.erase(key);
  const bio::ContactTrainOptions read = bio::ContactTrainOptions::option_list().from_json(options);
  CHECK(bio::ContactTrainOptions::option_list().to_json(read) == bio::ContactTrainOptions::option_list().to_json(o));
  CHECK(read.patience == 3);
  CHECK(read.crop == 10);
  CHECK(record.at("families") == Json::array({train[0].features.name}));
  CHECK(record.at("validation") == Json::array({val[0].features.name}));
  CHECK(record.at("epochs_run") == r.epochs_run);
  CHECK(record.at("best_epoch") == r.best_epoch);
  CHECK(file.optimizer_type.empty());
  // The config is the model's options, the block's as keys of the same object.
  CHECK(bio::ContactModelOptions::from_json(file.model.at("config")).to_json() == small_options().to_json());
  CHECK(file.model.at("config").at("n_heads_msa") == 2);
}

TEST_CASE("contact training: the loss leaves out pairs closer than min_separation", "[bio]") {
  const bio::TrainingFamily fam = testing::synthetic_family(12, 6, 9);
  Rng rng(0);
  const bio::ContactModelInput in = bio::make_model_input(fam.features, 1, 10, bio::sample_rows(6, 3, rng));
  const Tensor logits = testing::random_tensor({10, 10}, 3);  // [10, 10]
  for (const int64_t sep : {3, 6}) {
    // Naive reference: the mean logistic loss over the evaluable pairs at least sep apart.
    double sum = 0.0;
    int counted = 0;
    for (int64_t i = 0; i < 10; ++i)
      for (int64_t j = 0; j < 10; ++j) {
        const int64_t a = i + 1, b = j + 1;
        if (std::abs(a - b) < sep || !fam.truth.evaluable(a, b)) continue;
        const double x = logits[i * 10 + j], y = fam.truth.contact(a, b) ? 1.0 : 0.0;
        sum += std::log1p(std::exp(-std::abs(x))) + std::max(x, 0.0) - x * y;
        ++counted;
      }
    REQUIRE(counted > 0);
    const Var loss = bio::contact_loss(Var(logits), in, fam.truth, sep);
    CHECK(loss.value()[0] == Approx(sum / counted).epsilon(1e-5));
  }
  CHECK_FALSE(bio::contact_loss(Var(logits), in, fam.truth, 10).defined());
}

TEST_CASE("contact training: weight decay (AdamW) holds the parameters nearer 0, neighbour scores train", "[bio]") {
  const testing::ScopedThreads one_thread(1);
  const std::vector<bio::TrainingFamily> train = {testing::synthetic_family(12, 6, 1)};
  bio::ContactModelOptions mo = small_options();
  mo.neighbour_scores = true;
  auto norm_after = [&](double decay) {
    bio::ContactModel model(mo);
    bio::ContactTrainOptions o = quiet_options(5);
    o.adam.weight_decay = decay;
    const TrainResult r = bio::train_contact_model(model, train, {}, o);
    CHECK(std::isfinite(r.history.back().train_loss));
    double sq = 0.0;
    for (const float v : parameters_of(model)) sq += double(v) * v;
    return sq;
  };
  CHECK(norm_after(20.0) < norm_after(0.0));
}

TEST_CASE("contact training: a resumed run is bit-identical to an uninterrupted one", "[bio]") {
  const testing::ScopedThreads one_thread(1);
  testing::TempDir dir;
  const std::vector<bio::TrainingFamily> train = {testing::synthetic_family(13, 7, 3)};
  const std::vector<bio::TrainingFamily> val = {testing::synthetic_family(10, 5, 4)};

  bio::ContactModel straight(small_options());
  bio::ContactTrainOptions o = quiet_options(4);
  o.steps_per_epoch = 2;
  o.checkpoint_path = dir.file("straight.h5");
  const TrainResult a = bio::train_contact_model(straight, train, val, o);

  bio::ContactModel first(small_options());
  o.epochs = 2;
  o.checkpoint_path = dir.file("resumed.h5");
  bio::train_contact_model(first, train, val, o);
  const CheckpointData saved = load_checkpoint(o.checkpoint_path);
  CHECK(saved.epoch == 2);
  bio::ContactModel second(small_options());  // fresh parameters: all state comes from the file
  o.epochs = 4;
  const TrainResult b = bio::train_contact_model(second, train, val, o, &saved);

  CHECK(bitwise_equal(parameters_of(straight), parameters_of(second)));
  REQUIRE(a.history.size() == b.history.size());
  for (std::size_t e = 0; e < a.history.size(); ++e) {
    CHECK(a.history[e].train_loss == b.history[e].train_loss);
    CHECK(a.history[e].eval.val_metric == b.history[e].eval.val_metric);
  }
  const CheckpointData end_a = load_checkpoint(dir.file("straight.h5"));
  const CheckpointData end_b = load_checkpoint(dir.file("resumed.h5"));
  REQUIRE(end_a.parameters.size() == end_b.parameters.size());
  for (std::size_t k = 0; k < end_a.parameters.size(); ++k) {
    CHECK(bitwise_equal(end_a.parameters[k].second, end_b.parameters[k].second));
  }

  // A checkpoint of another run (another seed) is refused.
  bio::ContactModel third(small_options());
  o.seed = 8;
  CHECK_THROWS_AS(bio::train_contact_model(third, train, val, o, &saved), InputError);
}

TEST_CASE("contact training: family lists name the file and line of a bad entry", "[bio]") {
  testing::TempDir dir;
  { std::ofstream(dir.file("a.aln")) << "ACDE\nACDF\n"; }
  { std::ofstream(dir.file("a.tsv")) << "1\t4\t5.0\t1\n"; }
  {
    std::ofstream list(dir.file("list.txt"));
    list << "# alignment truth\n"
         << "a.aln a.tsv\n"
         << "missing.aln a.tsv\n";
  }
  try {
    bio::parse_family_list(dir.file("list.txt"));
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(e.file() == dir.file("list.txt"));
    CHECK(e.line() == 3);
    CHECK(std::string(e.what()).find("missing.aln") != std::string::npos);
  }
  { std::ofstream(dir.file("bad.txt")) << "a.aln\n"; }
  CHECK_THROWS_AS(bio::parse_family_list(dir.file("bad.txt")), InputError);
  CHECK_THROWS_AS(bio::parse_family_list(dir.file("nothing.txt")), InputError);
  // Found by scripts/fuzz_inputs.py: a name longer than the file system allows is no such
  // file (it was a std::filesystem error, reported as an internal error).
  { std::ofstream(dir.file("long.txt")) << std::string(5000, 'A') << " a.tsv\n"; }
  CHECK_THROWS_WITH(bio::parse_family_list(dir.file("long.txt")), Catch::Contains("long.txt:1: no such file"));

  const auto entries = bio::parse_family_list(dir.file("a.aln") + ":" + dir.file("a.tsv"));
  REQUIRE(entries.size() == 1);
  CHECK(entries[0].truth == dir.file("a.tsv"));
  const std::string pair = dir.file("a.aln") + ":" + dir.file("a.tsv");
  CHECK(bio::parse_family_list(pair + "," + pair).size() == 2);
  CHECK_THROWS_AS(bio::parse_family_list(pair + "," + dir.file("a.aln") + ":" + dir.file("none.tsv")), InputError);
}

TEST_CASE("the shipped contact model beats potts on its held-out families", "[bio]") {
  // docs/results.md: data/models/contact_evoformer.h5 against the stored potts scores of the
  // families in contact_heldout.txt (never used for training or model choice).
  const testing::ScopedThreads one_thread(1);
  const CheckpointData data = load_checkpoint(std::string(ATTEND_DATA_DIR) + "/models/contact_evoformer.h5");
  Registry registry;
  bio::ContactModel::register_into(registry);
  std::unique_ptr<Module> module = module_from_checkpoint(data, registry);
  auto* model = dynamic_cast<bio::ContactModel*>(module.get());
  REQUIRE(model != nullptr);
  {
    ParameterArena arena(model->named_parameters());
    load_parameters(data, arena);
  }
  model->eval();
  std::vector<bio::TrainingFamily> heldout;
  for (const auto& e : bio::parse_family_list(std::string(ATTEND_DATA_DIR) + "/proteins/contact_heldout.txt")) {
    heldout.push_back(bio::load_training_family(e));
  }
  REQUIRE(heldout.size() == 4);
  double potts_l5 = 0.0, potts_l2 = 0.0;
  for (const bio::TrainingFamily& f : heldout) {
    const bio::ContactPrecision p = bio::evaluate_contacts(f.features.scores, f.truth);
    potts_l5 += p.long_range.top_l5 / 4.0;
    potts_l2 += p.long_range.top_l2 / 4.0;
  }
  const bio::FamilyPrecision evo = bio::mean_long_range_precision(*model, heldout);
  CHECK(evo.top_l5 > potts_l5);
  CHECK(evo.top_l2 > potts_l2);
}
