#include "contacts_train.hpp"

#include <filesystem>
#include <iomanip>

#include "attend/bio/contact_metrics.hpp"
#include "attend/bio/contact_model.hpp"
#include "attend/bio/contact_training.hpp"
#include "attend/core/error.hpp"
#include "attend/core/json_writer.hpp"
#include "attend/core/output_transaction.hpp"
#include "attend/core/training_checkpoint.hpp"
#include "option_checks.hpp"

namespace attend::cli {

namespace {

std::vector<bio::TrainingFamily> load_families(const std::vector<bio::ContactFamilyEntry>& entries) {
  std::vector<bio::TrainingFamily> families;
  for (const bio::ContactFamilyEntry& e : entries) families.push_back(bio::load_training_family(e));
  return families;
}

/// Refuses an output option that names a file of a family list: writing would replace the
/// input (CommandFiles checks the options themselves while parsing; the lists are read here).
void refuse_outputs_over_listed_files(const CommandFiles& files, const std::vector<bio::ContactFamilyEntry>& entries) {
  for (const bio::ContactFamilyEntry& e : entries) {
    for (const std::string* listed : {&e.alignment, &e.truth}) {
      const std::string option = files.output_writing(*listed);
      if (option.empty()) continue;
      throw InputError(e.source, static_cast<std::size_t>(e.line),
                       "lists " + *listed + ", which " + option + " would replace (an output may not replace an input)");
    }
  }
}

/// The --json summary: the run, its epochs' history and the untrained baseline when scored.
Json training_summary(const ContactsTrainArgs& a, const Json& families, const std::string& scored,
                      const TrainResult& result, const std::optional<bio::FamilyPrecision>& initial) {
  Json history = Json::array();
  for (const EpochRecord& r : result.history) {
    Json e = {{"epoch", r.epoch + 1}, {"train_loss", r.train_loss}, {"val_loss", r.eval.val_loss},
              {"P@L/5", r.eval.val_metric}};
    for (const auto& [k, v] : r.eval.extras) e[k] = v;
    history.push_back(e);
  }
  Json summary = {{"model", a.out}, {"families", families}, {"epochs", result.epochs_run},
                  {"best_epoch", result.best_epoch + 1}, {"best_P@L/5", result.best_val_metric},
                  {"scored_on", scored}, {"seconds", result.seconds}, {"history", history}};
  if (initial) {
    summary["untrained_P@L/5"] = initial->top_l5;
    summary["untrained_P@L/2"] = initial->top_l2;
  }
  return summary;
}

}  // namespace

std::shared_ptr<ContactsTrainArgs> add_contacts_train_options(CLI::App* train) {
  auto a = std::make_shared<ContactsTrainArgs>();
  const std::shared_ptr<CommandFiles> files = CommandFiles::of(train);
  a->files = files;
  files->input(train->add_option("--families", a->families,
                                 "Training families: a file of 'ALIGNMENT TRUTH' lines or a comma list ALIGNMENT:TRUTH,...")
                   ->required()->type_name("LIST"));
  files->input(train->add_option("--val", a->validation, "Validation families (same forms); default: score the training families")
                   ->type_name("LIST"));
  files->output(train->add_option("--out", a->out, "Trained model (HDF5 checkpoint, written atomically at the end)")
                    ->required()->type_name("FILE"));
  train->add_option("--blocks", a->blocks, "Evoformer blocks")->check(at_least(0))->capture_default_str();
  train->add_option("--c-m", a->c_m, "MSA channels")->check(at_least(1))->capture_default_str();
  train->add_option("--c-z", a->c_z, "Pair channels")->check(at_least(1))->capture_default_str();
  train->add_option("--crop", a->crop, "Residue window of a training example")->check(at_least(2))->capture_default_str();
  train->add_option("--msa-depth", a->msa_depth, "Sequences per example, query included (also at prediction)")
      ->check(at_least(1))
      ->capture_default_str();
  train->add_option("--epochs", a->epochs, "Epochs")->check(at_least(0))->capture_default_str();
  train->add_option("--steps-per-epoch", a->steps_per_epoch, "Adam steps per epoch (one batch: a crop of every family)")
      ->check(at_least(1))
      ->capture_default_str();
  train->add_option("--lr", a->lr, "Adam learning rate")->check(positive())->capture_default_str();
  train->add_option("--weight-decay", a->weight_decay, "Decoupled weight decay (AdamW; 0: plain Adam)")
      ->check(at_least(0))
      ->capture_default_str();
  train->add_option("--min-separation", a->min_separation, "Pairs closer in sequence are left out of the loss")
      ->check(at_least(1))
      ->capture_default_str();
  train->add_flag("--neighbour-scores", a->neighbour_scores,
                  "Pair input and skip path read the potts score's neighbour means too (a learned 3x3 filter)");
  train->add_option("--patience", a->patience, "Early stopping on validation P@L/5 (0: off)")->check(at_least(0))->capture_default_str();
  train->add_option("--seed", a->seed, "Seed of the initialisation, crops, sequence subsets and dropout")
      ->check(seed())->capture_default_str();
  files->output(
      train->add_option("--checkpoint", a->checkpoint, "Training state written after every epoch (for --resume)")->type_name("FILE"));
  train->add_flag("--resume", a->resume, "Continue from --checkpoint (same families and options)");
  files->output(train->add_option("--json", a->json, "Write the training summary as JSON")->type_name("FILE"));
  train->add_flag("--quiet", a->quiet, "No progress line");
  return a;
}

int run_contacts_train(const ContactsTrainArgs& a, Context& ctx) {
  if (a.resume && a.checkpoint.empty()) throw InputError("--resume needs --checkpoint FILE");
  const std::vector<bio::ContactFamilyEntry> train_entries = bio::parse_family_list(a.families);
  std::vector<bio::ContactFamilyEntry> val_entries;
  if (!a.validation.empty()) val_entries = bio::parse_family_list(a.validation);
  refuse_outputs_over_listed_files(*a.files, train_entries);
  refuse_outputs_over_listed_files(*a.files, val_entries);

  bio::ContactModelOptions mo;
  mo.blocks = a.blocks;
  mo.c_m = a.c_m;
  mo.c_z = a.c_z;
  mo.msa_depth = a.msa_depth;
  mo.seed = a.seed;
  mo.neighbour_scores = a.neighbour_scores;
  bio::ContactModelOptions::option_list().check(mo);
  std::optional<CheckpointData> resume;
  if (a.resume) resume = load_checkpoint(a.checkpoint);
  // The model is built before anything is printed: building it checks its size against the
  // memory budget (--blocks 2000000000 is refused with no output before the message).
  std::unique_ptr<Module> module =
      resume ? module_from_checkpoint(*resume, ctx.registry) : ctx.registry.create("contact_model", mo.to_json());
  auto* model = dynamic_cast<bio::ContactModel*>(module.get());
  if (model == nullptr) throw InputError(a.checkpoint, 0, "the checkpoint does not hold a contact_model");

  const std::vector<bio::TrainingFamily> train = load_families(train_entries);
  const std::vector<bio::TrainingFamily> validation = load_families(val_entries);
  ctx.out << "training families:";
  for (const auto& f : train) ctx.out << ' ' << f.features.name << " (L " << f.features.length() << ")";
  ctx.out << '\n';
  if (!validation.empty()) {
    ctx.out << "validation families:";
    for (const auto& f : validation) ctx.out << ' ' << f.features.name;
    ctx.out << '\n';
  }

  ctx.out << "model: " << model->options().blocks << " Evoformer block(s), c_m " << model->options().c_m << ", c_z "
          << model->options().c_z << ", " << model->parameter_count() << " parameters\n";

  // The untrained model ranks pairs as potts (contact_model.hpp): the baseline to beat.
  const std::string scored = validation.empty() ? "training" : "validation";
  std::optional<bio::FamilyPrecision> initial;
  if (!resume && ctx.world.is_root()) {  // shown and written by rank 0 alone
    model->eval();
    initial = bio::mean_long_range_precision(*model, validation.empty() ? train : validation);
    ctx.out << std::fixed << std::setprecision(3) << "untrained (the potts ranking): " << scored
            << " long-range P@L/5 " << initial->top_l5 << ", P@L/2 " << initial->top_l2 << "\n";
    ctx.out.unsetf(std::ios::floatfield);
  }

  bio::ContactTrainOptions o;
  o.epochs = a.epochs;
  o.steps_per_epoch = a.steps_per_epoch;
  o.crop = a.crop;
  o.seed = a.seed;
  o.adam.lr = a.lr;
  o.adam.weight_decay = a.weight_decay;
  o.min_separation = a.min_separation;
  o.patience = a.patience;
  o.checkpoint_path = a.checkpoint;
  o.progress.mode = a.quiet ? ProgressMode::kSilent : ProgressMode::kAuto;
  o.progress.every = 1;
  o.progress.out = &ctx.err;
  o.communicator = &ctx.world;  // under mpirun: a batch's families spread over the ranks
  const TrainResult result = bio::train_contact_model(*model, train, validation, o, resume ? &*resume : nullptr);

  const CheckpointData data = bio::trained_contact_model_file(*model, o, result, train, validation);
  if (ctx.world.is_root()) {  // every rank holds the same model: rank 0 writes it
    OutputTransaction outputs;  // the model and the summary appear together
    save_checkpoint(a.out, data);
    if (!a.json.empty()) write_json_file(a.json, training_summary(a, data.model["training"]["families"], scored, result, initial));
    outputs.commit();
  }
  ctx.out << std::fixed << std::setprecision(3) << "trained " << result.epochs_run << " epochs in " << std::setprecision(1)
          << result.seconds << " s; best epoch " << result.best_epoch + 1 << ": " << scored
          << " long-range P@L/5 " << std::setprecision(3) << result.best_val_metric << "\n";
  ctx.out.unsetf(std::ios::floatfield);
  // The skip path's weights (score, then its neighbour means): the learned filter of the map.
  for (const auto& [name, p] : model->named_parameters()) {
    if (name != "potts_weight" && name != "potts_bias") continue;
    ctx.out << name << ":";
    for (const float v : p.value()) ctx.out << ' ' << v;
    ctx.out << '\n';
  }
  ctx.out << "model saved to " << a.out << "\n";
  return 0;
}

}  // namespace attend::cli
