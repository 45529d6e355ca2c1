#pragma once
/// `attend contacts train`: train the Evoformer contact model on families with known
/// contacts (its options and run, kept apart from predict and eval in cmd_contacts.cpp).

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "command_files.hpp"
#include "commands.hpp"

namespace attend::cli {

/// The options of `attend contacts train`.
struct ContactsTrainArgs {
  std::string families, validation, out, checkpoint, json;
  int64_t blocks = 1, c_m = 16, c_z = 16, crop = 64, msa_depth = 64, min_separation = 6;
  int epochs = 100, steps_per_epoch = 1, patience = 0;
  double lr = 1e-3, weight_decay = 0.0;
  uint64_t seed = 0;
  bool neighbour_scores = false, resume = false, quiet = false;
  std::shared_ptr<const CommandFiles> files;  ///< the file options, for the files of the lists
};

/// Add the options of `contacts train` to `train`.
std::shared_ptr<ContactsTrainArgs> add_contacts_train_options(CLI::App* train);

/// Load the families, train (or resume), write the model to `--out` atomically. Every input
/// is checked before training starts; a bad one is an attend::InputError and nothing is
/// written. Returns the exit code.
int run_contacts_train(const ContactsTrainArgs& args, Context& context);

}  // namespace attend::cli
