#include "contacts_train.hpp"

#include <filesystem>
#include <iomanip>

#include "attend/bio/contact_model.hpp"
#include "attend/bio/contact_training.hpp"
#include "attend/bio/contact_training_run.hpp"
#include "attend/core/error.hpp"
#include "option_checks.hpp"

namespace attend::cli {

namespace {

/// Refuses an output option that names a file of a family list: writing would replace the
/// input (CommandFiles checks the options themselves while parsing; the lists are read by the
/// driver, which calls this before loading them).
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

void print_setup(const bio::ContactTrainingSetup& s, std::ostream& out) {
  out << "training families:";
  for (const auto& [name, length] : s.training_families) out << ' ' << name << " (L " << length << ")";
  out << '\n';
  if (!s.validation_families.empty()) {
    out << "validation families:";
    for (const std::string& name : s.validation_families) out << ' ' << name;
    out << '\n';
  }
  out << "model: " << s.model.blocks << " Evoformer block(s), c_m " << s.model.c_m << ", c_z " << s.model.c_z << ", "
      << s.parameter_count << " parameters\n";
  if (s.untrained) {
    out << std::fixed << std::setprecision(3) << "untrained (the potts ranking): " << s.scored_on
        << " long-range P@L/5 " << s.untrained->top_l5 << ", P@L/2 " << s.untrained->top_l2 << "\n";
    out.unsetf(std::ios::floatfield);
  }
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
  // The ranges are those the model's and the training's option lists declare.
  const OptionList<bio::ContactModelOptions>& model = bio::ContactModelOptions::option_list();
  const OptionList<bio::ContactTrainOptions>& training = bio::ContactTrainOptions::option_list();
  train->add_option("--blocks", a->blocks, "Evoformer blocks")->check(in_range_of(model, "blocks"))->capture_default_str();
  train->add_option("--c-m", a->c_m, "MSA channels")->check(in_range_of(model, "c_m"))->capture_default_str();
  train->add_option("--c-z", a->c_z, "Pair channels")->check(in_range_of(model, "c_z"))->capture_default_str();
  train->add_option("--crop", a->crop, "Residue window of a training example")
      ->check(in_range_of(training, "crop"))
      ->capture_default_str();
  train->add_option("--msa-depth", a->msa_depth, "Sequences per example, query included (also at prediction)")
      ->check(in_range_of(model, "msa_depth"))
      ->capture_default_str();
  train->add_option("--epochs", a->epochs, "Epochs")->check(in_range_of(training, "epochs"))->capture_default_str();
  train->add_option("--steps-per-epoch", a->steps_per_epoch, "Adam steps per epoch (one batch: a crop of every family)")
      ->check(in_range_of(training, "steps_per_epoch"))
      ->capture_default_str();
  train->add_option("--lr", a->lr, "Adam learning rate")->check(in_range_of(training, "lr"))->capture_default_str();
  train->add_option("--weight-decay", a->weight_decay, "Decoupled weight decay (AdamW; 0: plain Adam)")
      ->check(in_range_of(training, "weight_decay"))
      ->capture_default_str();
  train->add_option("--min-separation", a->min_separation, "Pairs closer in sequence are left out of the loss")
      ->check(in_range_of(training, "min_separation"))
      ->capture_default_str();
  train->add_flag("--neighbour-scores", a->neighbour_scores,
                  "Pair input and skip path read the potts score's neighbour means too (a learned 3x3 filter)");
  train->add_option("--patience", a->patience, "Early stopping on validation P@L/5 (0: off)")
      ->check(in_range_of(training, "patience"))
      ->capture_default_str();
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
  bio::ContactTrainingRunOptions o;
  o.families = a.families;
  o.validation = a.validation;
  o.out = a.out;
  o.json_path = a.json;
  o.resume = a.resume;
  o.model.blocks = a.blocks;
  o.model.c_m = a.c_m;
  o.model.c_z = a.c_z;
  o.model.msa_depth = a.msa_depth;
  o.model.seed = a.seed;
  o.model.neighbour_scores = a.neighbour_scores;
  o.training.epochs = a.epochs;
  o.training.steps_per_epoch = a.steps_per_epoch;
  o.training.crop = a.crop;
  o.training.seed = a.seed;
  o.training.adam.lr = a.lr;
  o.training.adam.weight_decay = a.weight_decay;
  o.training.min_separation = a.min_separation;
  o.training.patience = a.patience;
  o.training.checkpoint_path = a.checkpoint;
  o.training.progress.mode = a.quiet ? ProgressMode::kSilent : ProgressMode::kAuto;
  o.training.progress.every = 1;
  o.training.progress.out = &ctx.err;
  o.training.communicator = &ctx.world;  // under mpirun: a batch's families spread over the ranks
  o.check_entries = [files = a.files](const std::vector<bio::ContactFamilyEntry>& entries) {
    refuse_outputs_over_listed_files(*files, entries);
  };
  const bio::ContactTrainingRunResult run =
      bio::run_contact_training(o, ctx.registry, [&](const bio::ContactTrainingSetup& s) { print_setup(s, ctx.out); });

  const TrainResult& result = run.training;
  ctx.out << std::fixed << std::setprecision(3) << "trained " << result.epochs_run << " epochs in " << std::setprecision(1)
          << result.seconds << " s; best epoch " << result.best_epoch + 1 << ": " << run.setup.scored_on
          << " long-range P@L/5 " << std::setprecision(3) << result.best_val_metric << "\n";
  ctx.out.unsetf(std::ios::floatfield);
  for (const auto& [name, values] : run.skip_parameters) {
    ctx.out << name << ":";
    for (const float v : values) ctx.out << ' ' << v;
    ctx.out << '\n';
  }
  ctx.out << "model saved to " << a.out << "\n";
  return 0;
}

}  // namespace attend::cli
