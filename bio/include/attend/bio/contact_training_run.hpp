#pragma once
/// `attend contacts train`, as a library call: read the family lists, build (or resume) the
/// contact model, train it (train_contact_model), and write the model file and the --json
/// summary together. The command line and the Python module (`attend.contacts.train`) call it
/// alike; they only print what it returns.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "attend/bio/contact_model.hpp"
#include "attend/bio/contact_training.hpp"
#include "attend/core/options_json.hpp"
#include "attend/core/registry.hpp"

namespace attend::bio {

struct ContactTrainingRunOptions {
  std::string families;    ///< training families: a family list (parse_family_list)
  std::string validation;  ///< validation families; empty: the training families are scored
  std::string out;         ///< the model file (trained_contact_model_file), written at the end
  std::string json_path;   ///< the summary (contact_training_summary) when not empty
  ContactModelOptions model;     ///< the new model's options (not read when resuming)
  ContactTrainOptions training;  ///< checkpoint_path, progress and communicator included
  bool resume = false;           ///< continue from training.checkpoint_path
  /// When set, called with every entry of both lists before any family is loaded (the command
  /// line refuses outputs that would replace a listed file); it throws to refuse.
  std::function<void(const std::vector<ContactFamilyEntry>&)> check_entries;
};

/// What is known once the families are loaded and the model built, before training.
struct ContactTrainingSetup {
  std::vector<std::pair<std::string, int64_t>> training_families;  ///< name, length
  std::vector<std::string> validation_families;                    ///< names
  ContactModelOptions model;   ///< the model's options (the checkpoint's when resuming)
  int64_t parameter_count = 0;
  std::string scored_on;       ///< "validation", or "training" without validation families
  /// The untrained model's precision (the potts ranking, the baseline to beat) on the scored
  /// families; absent when resuming and on ranks other than 0.
  std::optional<FamilyPrecision> untrained;
};

struct ContactTrainingRunResult {
  ContactTrainingSetup setup;
  TrainResult training;
  /// The skip path's parameters potts_weight and potts_bias (the learned filter of the map).
  std::vector<std::pair<std::string, std::vector<float>>> skip_parameters;
  Json summary;  ///< contact_training_summary, written to json_path when given
};

/// Receives the setup once the model is built and the baseline scored, before training.
using ContactTrainingStarted = std::function<void(const ContactTrainingSetup& setup)>;

/// Run `attend contacts train`. Every input is checked before training starts (a bad one is
/// attend::InputError and nothing is written); the model and the summary appear together
/// through one OutputTransaction, written by rank 0 alone under a communicator.
ContactTrainingRunResult run_contact_training(const ContactTrainingRunOptions& options, const Registry& registry,
                                              const ContactTrainingStarted& started = {});

/// The --json summary: model (the out path), families (the model file's record), epochs,
/// best_epoch (1-based), best_P@L/5, scored_on, seconds, history (epoch, train_loss,
/// val_loss, P@L/5 and the evaluation's extras) and, when scored, untrained_P@L/5 and /2.
Json contact_training_summary(const std::string& model_path, const Json& families, const ContactTrainingSetup& setup,
                              const TrainResult& result);

}  // namespace attend::bio
