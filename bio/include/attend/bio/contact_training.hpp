#pragma once
/// Training the supervised contact model (contact_model.hpp) on families with known contacts.
///
/// A family list names pairs (alignment, truth): a text file with one `ALIGNMENT TRUTH` pair
/// per line (whitespace separated, `#` comments, paths relative to the list's folder), or a
/// comma list `ALIGNMENT:TRUTH,ALIGNMENT:TRUTH`. The alignment is an alignment HDF5 file with
/// scores (`attend convert --msa ... --with-scores`) or a text alignment (fitted with potts on
/// loading); the truth is a contacts TSV (contact_truth.hpp).
///
/// One epoch is `steps_per_epoch` Adam steps; each step's batch is one random window of at
/// most `crop` residues and a random subset of `msa_depth` sequences from every training
/// family (a seeded attend::Rng per epoch, step and family: a resumed run draws the same).
/// The loss is the binary cross-entropy of the contact logits over the evaluable pairs with
/// |i - j| >= min_separation, averaged per family, then over the families. After every epoch
/// the validation families (or, without any, the training families) are predicted whole and
/// scored by their mean long-range precision at L/5 (the metric; L/2 is reported too).
///
/// Data-parallel (`mpirun -np K attend contacts train`): every family of a batch is a shard
/// (shard_reduction.hpp). Rank r computes the gradients of its contiguous share of the
/// families, the shard gradients are summed in the fixed bisection-tree order, and every rank
/// takes the same clipped Adam step; the validation families are spread the same way and their
/// scores gathered in family order. The model, losses and metrics have the bits of one rank for
/// any K up to the number of families (larger K: the extra ranks idle). Rank 0 alone writes
/// the checkpoint and shows progress.

#include <cstdint>
#include <string>
#include <vector>

#include "attend/bio/contact_features.hpp"
#include "attend/bio/contact_map.hpp"
#include "attend/bio/contact_model.hpp"
#include "attend/core/adam.hpp"
#include "attend/core/checkpoint.hpp"
#include "attend/core/communicator.hpp"
#include "attend/core/trainer.hpp"

namespace attend::bio {

/// One entry of a family list.
struct ContactFamilyEntry {
  std::string alignment;  ///< alignment file (HDF5 with scores, or text)
  std::string truth;      ///< contacts TSV
  std::string source;     ///< the list file (or "--families") the entry came from
  int64_t line = 0;       ///< its line in `source` (0 for a comma list)
};

/// Parse a family list (file or comma list, see the file comment). Every named file must
/// exist: a missing one throws attend::InputError with the list's file and line.
std::vector<ContactFamilyEntry> parse_family_list(const std::string& spec);

/// A family ready for training: its features and its truth (same length).
struct TrainingFamily {
  FamilyFeatures features;
  ContactMap truth;
};

/// Load an entry (features and truth); problems throw attend::InputError naming the file.
TrainingFamily load_training_family(const ContactFamilyEntry& entry);

/// Options of `train_contact_model`.
struct ContactTrainOptions {
  int epochs = 100;
  int steps_per_epoch = 1;
  int64_t crop = 64;            ///< window length (families no longer than this are whole)
  int64_t min_separation = 6;   ///< pairs closer in sequence are not in the loss
  uint64_t seed = 0;            ///< crops, sequence subsets and dropout
  /// Adam; with adam.weight_decay > 0, AdamW (decoupled decay towards 0: the head's 0 is the
  /// potts ranking, so the decay holds the model near it).
  AdamOptions adam{.lr = 1e-3};
  double clip_grad_norm = 1.0;
  int patience = 0;             ///< early stopping on the validation metric; 0: off
  /// Written atomically after every epoch when not empty (model, Adam, trainer state).
  std::string checkpoint_path;
  ProgressOptions progress;
  /// The ranks a batch's families are spread over (the file comment); null: this process
  /// alone. Every rank of it must call `train_contact_model` with the same options and data.
  const Communicator* communicator = nullptr;

  /// The training options declared once (not the checkpoint path, progress or communicator,
  /// which say where a run writes and reports): the model file's "training" record, the user
  /// guide's table.
  static const OptionList<ContactTrainOptions>& option_list();
};

/// The loss of one window: mean binary cross-entropy of `logits` [W, W] over the pairs of
/// `input` that `truth` can evaluate and whose separation is at least `min_separation`, as a
/// scalar; an undefined Var when no pair qualifies.
Var contact_loss(const Var& logits, const ContactModelInput& input, const ContactMap& truth, int64_t min_separation);

/// Train `model` in place (its arena is made here). `resume`, when not null, is a checkpoint
/// written by an earlier run with the same options and families: its parameters, Adam state
/// and trainer state are restored and training continues with the same bits as a run that
/// never stopped (the checkpoint must come from the same seed, crop and families; otherwise
/// attend::InputError). Returns the trainer's result; the model ends with the parameters of
/// the best validation epoch.
TrainResult train_contact_model(ContactModel& model, const std::vector<TrainingFamily>& train,
                                const std::vector<TrainingFamily>& validation, const ContactTrainOptions& options,
                                const CheckpointData* resume = nullptr);

/// The model file `attend contacts train --out` writes: `model`'s parameters (no optimizer
/// or trainer state), its config, and a "training" record: `options` (option_list's keys),
/// the training and validation families by name, and from `result` epochs_run, best_epoch
/// (0-based) and seconds.
CheckpointData trained_contact_model_file(const ContactModel& model, const ContactTrainOptions& options,
                                          const TrainResult& result, const std::vector<TrainingFamily>& train,
                                          const std::vector<TrainingFamily>& validation);

/// Mean long-range precision at L/5 and L/2 of `model` (evaluation mode) over `families`.
struct FamilyPrecision {
  double top_l5 = 0.0;
  double top_l2 = 0.0;
};
FamilyPrecision mean_long_range_precision(const ContactModel& model, const std::vector<TrainingFamily>& families);

}  // namespace attend::bio
