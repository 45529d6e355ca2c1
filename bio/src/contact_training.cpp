#include "attend/bio/contact_training.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <sstream>
#include <system_error>

#include "attend/bio/contact_metrics.hpp"
#include "attend/bio/contact_truth.hpp"
#include "attend/core/error.hpp"
#include "attend/core/io/line_reader.hpp"
#include "attend/core/ops/elementwise.hpp"
#include "attend/core/ops/loss.hpp"
#include "attend/core/parameter_arena.hpp"
#include "attend/core/quoted_input.hpp"
#include "attend/core/shard_reduction.hpp"
#include "attend/core/training_checkpoint.hpp"

namespace attend::bio {

namespace {

namespace fs = std::filesystem;

ContactFamilyEntry make_entry(const std::string& alignment, const std::string& truth, const std::string& source,
                              int64_t line) {
  for (const std::string& path : {alignment, truth}) {
    std::error_code error;  // e.g. a name too long for the file system: no such file
    if (!fs::is_regular_file(path, error)) {
      throw InputError(source, static_cast<std::size_t>(line), "no such file " + quoted_input(path));
    }
  }
  return {alignment, truth, source, line};
}

// The seed of one family's draws at (epoch, step): depends on nothing else.
uint64_t draw_seed(uint64_t seed, int epoch, int step, std::size_t family) {
  uint64_t s = mix64(seed ^ 0x636f6e7461637473ULL);
  s = mix64(s ^ static_cast<uint64_t>(epoch));
  s = mix64(s ^ static_cast<uint64_t>(step));
  return mix64(s ^ static_cast<uint64_t>(family));
}

// What a resumed run must share with the run that wrote the checkpoint.
Json run_identity(const ContactTrainOptions& o, const std::vector<TrainingFamily>& train,
                  const std::vector<TrainingFamily>& validation) {
  Json names = Json::array(), val = Json::array();
  for (const TrainingFamily& f : train) names.push_back(f.features.name);
  for (const TrainingFamily& f : validation) val.push_back(f.features.name);
  return {{"seed", o.seed},
          {"crop", o.crop},
          {"steps_per_epoch", o.steps_per_epoch},
          {"min_separation", o.min_separation},
          {"weight_decay", o.adam.weight_decay},
          {"train", names},
          {"validation", val}};
}

}  // namespace

const OptionList<ContactTrainOptions>& ContactTrainOptions::option_list() {
  using O = ContactTrainOptions;
  static const OptionList<O> list =
      OptionList<O>("contact training")
          .add("epochs", &O::epochs, "epochs", OptionRange::at_least(0))
          .add("steps_per_epoch", &O::steps_per_epoch, "Adam steps per epoch (one batch: a crop of every family)",
               OptionRange::at_least(1))
          .add("crop", &O::crop, "residue window of a training example (shorter families are whole)",
               OptionRange::at_least(2))
          .add("min_separation", &O::min_separation, "pairs closer in sequence are left out of the loss",
               OptionRange::at_least(1))
          .add("seed", &O::seed, "seed of the crops, sequence subsets and dropout")
          .include(&O::adam, AdamOptions::option_list())
          .add("clip_grad_norm", &O::clip_grad_norm, "gradients clipped at this norm; 0: no clipping",
               OptionRange::at_least(0))
          .add("patience", &O::patience, "early stopping on the validation P@L/5 after this many epochs; 0: off",
               OptionRange::at_least(0));
  return list;
}

std::vector<ContactFamilyEntry> parse_family_list(const std::string& spec) {
  std::vector<ContactFamilyEntry> entries;
  std::error_code error;
  if (fs::is_regular_file(spec, error)) {
    io::LineReader reader(spec);  // the line bound and gzip of every text file
    const fs::path folder = fs::path(spec).parent_path();
    auto resolve = [&](const std::string& p) { return fs::path(p).is_absolute() ? p : (folder / p).string(); };
    std::string text;
    while (reader.next(text)) {
      const std::size_t hash = text.find('#');
      if (hash != std::string::npos) text.resize(hash);
      const std::vector<std::string> words = io::split_whitespace(text);
      if (words.empty()) continue;
      if (words.size() != 2) reader.fail("expected 'ALIGNMENT TRUTH', got " + quoted_input(text));
      entries.push_back(make_entry(resolve(words[0]), resolve(words[1]), spec, static_cast<int64_t>(reader.line_number())));
    }
  } else if (spec.find(':') != std::string::npos) {
    std::istringstream items(spec);
    std::string item;
    while (std::getline(items, item, ',')) {
      if (item.empty()) continue;
      const std::size_t colon = item.rfind(':');
      if (colon == std::string::npos || colon == 0 || colon + 1 == item.size()) {
        throw InputError("--families", 0, "expected ALIGNMENT:TRUTH, got " + quoted_input(item));
      }
      entries.push_back(make_entry(item.substr(0, colon), item.substr(colon + 1), "--families", 0));
    }
  } else {
    throw InputError(spec, 0, "no such family list (a file, or a comma list of ALIGNMENT:TRUTH)");
  }
  if (entries.empty()) throw InputError(spec, 0, "the family list names no family");
  return entries;
}

TrainingFamily load_training_family(const ContactFamilyEntry& entry) {
  TrainingFamily f{load_family_features(entry.alignment), read_contacts_tsv(entry.truth)};
  // Name the family by its file name without extensions (PF00014.h5 -> PF00014).
  std::string name = fs::path(entry.alignment).filename().string();
  f.features.name = name.substr(0, name.find('.'));
  if (f.truth.length() != f.features.length()) {
    throw InputError(entry.truth, 0, "the contacts cover " + std::to_string(f.truth.length()) +
                                         " positions, the alignment " + entry.alignment + " has " +
                                         std::to_string(f.features.length()) + " columns");
  }
  return f;
}

Var contact_loss(const Var& logits, const ContactModelInput& input, const ContactMap& truth, int64_t min_separation) {
  const int64_t W = logits.dim(0);
  Tensor targets({W, W}, 0.0f), weights({W, W}, 0.0f);  // [W, W]
  int64_t counted = 0;
  for (int64_t i = 0; i < W; ++i)
    for (int64_t j = 0; j < W; ++j) {
      const int64_t pi = input.positions[i], pj = input.positions[j];
      if (std::abs(pi - pj) < min_separation || !truth.evaluable(pi, pj)) continue;
      weights[i * W + j] = 1.0f;
      targets[i * W + j] = truth.contact(pi, pj) ? 1.0f : 0.0f;
      ++counted;
    }
  if (counted == 0) return Var();
  // The op averages over all W^2 entries; rescale to the mean over the counted pairs.
  return ops::scale(ops::binary_cross_entropy_with_logits(logits, targets, &weights),
                    static_cast<float>(double(W * W) / double(counted)));
}

CheckpointData trained_contact_model_file(const ContactModel& model, const ContactTrainOptions& options,
                                          const TrainResult& result, const std::vector<TrainingFamily>& train,
                                          const std::vector<TrainingFamily>& validation) {
  ParameterArena arena(model.named_parameters());
  CheckpointData data = capture_checkpoint(model, arena, nullptr, nullptr);
  Json record = with_short_floats(ContactTrainOptions::option_list().to_json(options));
  Json names = Json::array(), val_names = Json::array();
  for (const TrainingFamily& f : train) names.push_back(f.features.name);
  for (const TrainingFamily& f : validation) val_names.push_back(f.features.name);
  record.update({{"families", names},
                 {"validation", val_names},
                 {"epochs_run", result.epochs_run},
                 {"best_epoch", result.best_epoch},
                 {"seconds", result.seconds}});
  data.model["training"] = record;
  return data;
}

FamilyPrecision mean_long_range_precision(const ContactModel& model, const std::vector<TrainingFamily>& families) {
  FamilyPrecision p;
  if (families.empty()) return p;
  for (const TrainingFamily& f : families) {
    const ContactPrecision c = evaluate_contacts(predict_contact_probabilities(model, f.features), f.truth);
    p.top_l5 += c.long_range.top_l5;
    p.top_l2 += c.long_range.top_l2;
  }
  p.top_l5 /= static_cast<double>(families.size());
  p.top_l2 /= static_cast<double>(families.size());
  return p;
}

TrainResult train_contact_model(ContactModel& model, const std::vector<TrainingFamily>& train,
                                const std::vector<TrainingFamily>& validation, const ContactTrainOptions& o,
                                const CheckpointData* resume) {
  if (train.empty()) throw InputError("contacts train needs at least one training family");
  ContactTrainOptions::option_list().check(o);
  const Communicator& comm = o.communicator != nullptr ? *o.communicator : Communicator::self();
  ParameterArena arena(model.named_parameters());
  // AdamW when decaying: the decay pulls the head towards 0, the potts ranking.
  std::unique_ptr<Adam> optimizer =
      o.adam.weight_decay > 0.0 ? std::make_unique<AdamW>(o.adam) : std::make_unique<Adam>(o.adam);
  Adam& adam = *optimizer;
  TrainerOptions to;
  to.max_epochs = o.epochs;
  to.patience = o.patience;
  to.clip_grad_norm = o.clip_grad_norm;
  to.metric_name = "P@L/5";
  to.progress = o.progress;
  if (!comm.is_root()) to.progress.mode = ProgressMode::kSilent;
  const Json identity = run_identity(o, train, validation);
  to.on_epoch_end = [&](const TrainerState& state) {
    if (o.checkpoint_path.empty() || !comm.is_root()) return;
    CheckpointData data = capture_checkpoint(model, arena, &adam, &state);
    data.trainer_state["contact_training"] = identity;
    save_checkpoint(o.checkpoint_path, data);
  };
  Trainer trainer(arena, adam, to);
  if (resume != nullptr) {
    if (!resume->trainer_state.is_object() || resume->trainer_state.value("contact_training", Json()) != identity) {
      throw InputError(o.checkpoint_path, 0,
                       "the checkpoint comes from another run (seed, crop, steps, separation or families differ)");
    }
    resume_from_checkpoint(*resume, arena, adam, trainer);
  }

  const int64_t depth = model.options().msa_depth;
  const auto num_families = static_cast<int64_t>(train.size());
  const double inv_families = 1.0 / static_cast<double>(train.size());
  // Forward and backward of one step's batch, one shard per family: the arena ends with the
  // batch gradient (the tree-ordered sum over every rank's families).
  auto batch = [&](int epoch, int step) {
    const double total = sum_shard_losses_and_gradients(comm, arena, num_families, [&](int64_t f) {
      const TrainingFamily& fam = train[static_cast<std::size_t>(f)];
      Rng rng(draw_seed(o.seed, epoch, step, static_cast<std::size_t>(f)));
      const int64_t L = fam.features.length(), width = std::min(L, o.crop);
      const auto begin = static_cast<int64_t>(rng.below(static_cast<uint64_t>(L - width + 1)));
      const std::vector<int64_t> rows = sample_rows(fam.features.alignment.num_sequences(), depth, rng);
      const ContactModelInput input = make_model_input(fam.features, begin, width, rows, model.options().neighbour_scores);
      const Var loss = contact_loss(model.forward(input, rng.split()), input, fam.truth, o.min_separation);
      if (!loss.defined()) return 0.0;
      ops::scale(loss, static_cast<float>(inv_families)).backward();
      return double(loss.value()[0]);
    });
    return total * inv_families;
  };
  auto train_step = [&](int epoch) {
    model.train();
    double loss = 0.0;
    for (int step = 0; step < o.steps_per_epoch; ++step) {
      if (step > 0) {  // the Trainer clips and steps after the last one
        if (o.clip_grad_norm > 0.0) arena.clip_grad_norm(o.clip_grad_norm);
        adam.step(arena);
        arena.zero_grad();
      }
      loss += batch(epoch, step);
    }
    return loss / o.steps_per_epoch;
  };
  const std::vector<TrainingFamily>& scored = validation.empty() ? train : validation;
  // Per scored family: loss, whether it had one, long-range P@L/5, P@L/2.
  constexpr int64_t kScores = 4;
  auto evaluate = [&]() {
    model.eval();
    const auto num_scored = static_cast<int64_t>(scored.size());
    const ShardRange own = shard_range(num_scored, comm.rank(), comm.size());
    std::vector<double> local;  // [own families, kScores]
    for (int64_t s = own.begin; s < own.end; ++s) {
      const TrainingFamily& f = scored[static_cast<std::size_t>(s)];
      const ContactModelInput input = whole_family_input(model, f.features);  // what prediction reads
      const Var logits = model.forward(input);  // [L, L]
      const Var l = contact_loss(logits, input, f.truth, o.min_separation);
      // The sigmoid keeps the order, so the logits rank the pairs as the probabilities do.
      const ContactPrecision c = evaluate_contacts(logits.value(), f.truth);
      local.insert(local.end(), {l.defined() ? double(l.value()[0]) : 0.0, l.defined() ? 1.0 : 0.0,
                                 c.long_range.top_l5, c.long_range.top_l2});
    }
    const std::vector<double> all = gather_shard_values(comm, num_scored, local, kScores);  // [families, kScores]
    EvalMetrics m;
    double loss = 0.0, top_l5 = 0.0, top_l2 = 0.0;
    int counted = 0;
    for (int64_t s = 0; s < num_scored; ++s) {  // in family order: the bits of one rank
      loss += all[s * kScores];
      counted += all[s * kScores + 1] > 0.0 ? 1 : 0;
      top_l5 += all[s * kScores + 2];
      top_l2 += all[s * kScores + 3];
    }
    m.val_loss = counted > 0 ? loss / counted : 0.0;
    m.val_metric = top_l5 / static_cast<double>(scored.size());
    m.extras = {{"P@L/2", top_l2 / static_cast<double>(scored.size())}};
    model.train();
    return m;
  };
  TrainResult result = trainer.fit(train_step, evaluate);
  model.eval();
  return result;
}

}  // namespace attend::bio
