#include "attend/bio/contact_training_run.hpp"

#include <memory>

#include "attend/core/checkpoint.hpp"
#include "attend/core/error.hpp"
#include "attend/core/json_writer.hpp"
#include "attend/core/output_transaction.hpp"
#include "attend/core/training_checkpoint.hpp"

namespace attend::bio {

namespace {

std::vector<TrainingFamily> load_families(const std::vector<ContactFamilyEntry>& entries) {
  std::vector<TrainingFamily> families;
  for (const ContactFamilyEntry& e : entries) families.push_back(load_training_family(e));
  return families;
}

}  // namespace

ContactTrainingRunResult run_contact_training(const ContactTrainingRunOptions& options, const Registry& registry,
                                              const ContactTrainingStarted& started) {
  if (options.resume && options.training.checkpoint_path.empty()) throw InputError("--resume needs --checkpoint FILE");
  const std::vector<ContactFamilyEntry> train_entries = parse_family_list(options.families);
  std::vector<ContactFamilyEntry> val_entries;
  if (!options.validation.empty()) val_entries = parse_family_list(options.validation);
  if (options.check_entries) {
    options.check_entries(train_entries);
    options.check_entries(val_entries);
  }
  ContactModelOptions::option_list().check(options.model);
  std::optional<CheckpointData> resume;
  if (options.resume) resume = load_checkpoint(options.training.checkpoint_path);
  // The model is built before any family is loaded: building it checks its size against the
  // memory budget (--blocks 2000000000 is refused before anything is shown).
  std::unique_ptr<Module> module =
      resume ? module_from_checkpoint(*resume, registry) : registry.create("contact_model", options.model.to_json());
  auto* model = dynamic_cast<ContactModel*>(module.get());
  if (model == nullptr) {
    throw InputError(options.training.checkpoint_path, 0, "the checkpoint does not hold a contact_model");
  }

  const std::vector<TrainingFamily> train = load_families(train_entries);
  const std::vector<TrainingFamily> validation = load_families(val_entries);
  const Communicator& comm =
      options.training.communicator != nullptr ? *options.training.communicator : Communicator::self();

  ContactTrainingRunResult run;
  ContactTrainingSetup& setup = run.setup;
  for (const TrainingFamily& f : train) setup.training_families.emplace_back(f.features.name, f.features.length());
  for (const TrainingFamily& f : validation) setup.validation_families.push_back(f.features.name);
  setup.model = model->options();
  setup.parameter_count = model->parameter_count();
  setup.scored_on = validation.empty() ? "training" : "validation";
  // The untrained model ranks pairs as potts (contact_model.hpp): the baseline to beat.
  if (!resume && comm.is_root()) {
    model->eval();
    setup.untrained = mean_long_range_precision(*model, validation.empty() ? train : validation);
  }
  if (started) started(setup);

  run.training = train_contact_model(*model, train, validation, options.training, resume ? &*resume : nullptr);
  const CheckpointData data = trained_contact_model_file(*model, options.training, run.training, train, validation);
  run.summary = contact_training_summary(options.out, data.model["training"]["families"], setup, run.training);
  if (comm.is_root()) {  // every rank holds the same model: rank 0 writes it
    OutputTransaction outputs;  // the model and the summary appear together
    save_checkpoint(options.out, data);
    if (!options.json_path.empty()) write_json_file(options.json_path, run.summary);
    outputs.commit();
  }
  for (const auto& [name, p] : model->named_parameters()) {
    if (name == "potts_weight" || name == "potts_bias") {
      run.skip_parameters.emplace_back(name, std::vector<float>(p.value().begin(), p.value().end()));
    }
  }
  return run;
}

Json contact_training_summary(const std::string& model_path, const Json& families, const ContactTrainingSetup& setup,
                              const TrainResult& result) {
  Json history = Json::array();
  for (const EpochRecord& r : result.history) {
    Json e = {{"epoch", r.epoch + 1}, {"train_loss", r.train_loss}, {"val_loss", r.eval.val_loss},
              {"P@L/5", r.eval.val_metric}};
    for (const auto& [k, v] : r.eval.extras) e[k] = v;
    history.push_back(e);
  }
  Json summary = {{"model", model_path}, {"families", families}, {"epochs", result.epochs_run},
                  {"best_epoch", result.best_epoch + 1}, {"best_P@L/5", result.best_val_metric},
                  {"scored_on", setup.scored_on}, {"seconds", result.seconds}, {"history", history}};
  if (setup.untrained) {
    summary["untrained_P@L/5"] = setup.untrained->top_l5;
    summary["untrained_P@L/2"] = setup.untrained->top_l2;
  }
  return summary;
}

}  // namespace attend::bio
