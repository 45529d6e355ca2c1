#pragma once
/// Trainer: full-batch or mini-batch training with early stopping, best-model restore and
/// resumable state.
///
/// The trainer knows nothing of models or data: the caller passes `train_step` (forward,
/// backward, returns the training loss) and `evaluate` (validation loss and metric). Each
/// epoch: zero the gradients, train_step(epoch), clip the gradient norm (optional),
/// optimizer.step, evaluate (under a NoGradGuard), update the stopping rule, report progress,
/// call the checkpoint hook. `fit_batches` runs several such steps (one per batch) before
/// each evaluation.
///
/// Stopping rules (GAT, Velickovic et al. 2018, Sec. 3.3: early stopping on both the
/// validation loss and accuracy); training stops after `patience` bad epochs in a row:
/// - `kBestMetric`: an epoch is bad when the validation loss is not below the lowest seen and
///   the metric not above the highest seen; the best parameters are those of the epoch with
///   the highest metric, ties broken by the lower loss.
/// - `kGatReference`: as the GAT authors' code: an epoch is good when the metric is at least
///   the highest seen or the loss at most the lowest seen (ties count); the parameters are
///   kept when both hold at once.
/// - `kGatAccuracy`: the authors' rule for their CiteSeer (and, by their account, PubMed)
///   numbers (PetarV-/GAT issues #14, #12): an epoch is good when the metric is at least the
///   highest seen (ties count), and the parameters are kept at every good epoch; the loss is
///   recorded but chooses nothing.

#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "attend/core/optimizer.hpp"
#include "attend/core/parameter_arena.hpp"
#include "attend/core/progress.hpp"

namespace attend {

/// What `evaluate` reports after an epoch.
struct EvalMetrics {
  double val_loss = 0.0;
  double val_metric = 0.0;  ///< higher is better (accuracy, F1, precision at L)
  std::vector<std::pair<std::string, double>> extras;  ///< shown and recorded, not used
};

/// One epoch of the history.
struct EpochRecord {
  int epoch = 0;  ///< 0-based
  double train_loss = 0.0;
  EvalMetrics eval;
};

/// Everything a resumed run needs besides the arena values and the optimizer state; a
/// checkpoint saves it, `Trainer::load_state` takes it back, and the run continues with the
/// same bits as one that never stopped. Before the first epoch the best and extreme values
/// are +/- infinity (JSON cannot hold those; store them as HDF5 doubles or strings).
struct TrainerState {
  static constexpr double kInf = std::numeric_limits<double>::infinity();

  int epoch = 0;                ///< epochs completed (the next one to run)
  int best_epoch = -1;          ///< epoch of the best parameters; -1 before any
  double best_val_metric = -kInf;  ///< at best_epoch
  double best_val_loss = kInf;     ///< at best_epoch
  double max_val_metric = -kInf;   ///< highest metric so far (stopping rule)
  double min_val_loss = kInf;      ///< lowest loss so far (stopping rule)
  int bad_epochs = 0;           ///< bad epochs in a row
  bool stopped = false;         ///< the stopping rule fired
  double seconds = 0.0;         ///< training time over all runs so far
  Tensor best_parameters;       ///< arena snapshot at best_epoch ([0] before any)
  std::vector<EpochRecord> history;
};

enum class StoppingRule { kBestMetric, kGatReference, kGatAccuracy };

struct TrainerOptions {
  int max_epochs = 200;         ///< total epochs, counting those of earlier runs
  StoppingRule rule = StoppingRule::kBestMetric;  ///< see the file comment
  int patience = 100;           ///< bad epochs before stopping; 0 turns early stopping off
  double clip_grad_norm = 0.0;  ///< clip the global gradient norm to this; 0 = off
  bool restore_best = true;     ///< load the best parameters into the arena at the end
  std::string metric_name = "val_metric";  ///< how the progress line names the metric
  ProgressOptions progress;     ///< the progress line (mode, interval, stream)
  /// fit_batches: epochs of at least this many batches also get a per-batch progress line.
  int64_t long_epoch_batches = 100;
  /// Called after every epoch with the updated state (a checkpoint hook); may be empty.
  std::function<void(const TrainerState&)> on_epoch_end;
};

struct TrainResult {
  int epochs_run = 0;        ///< epochs completed, counting earlier runs
  int best_epoch = -1;
  double best_val_metric = -TrainerState::kInf;
  double best_val_loss = TrainerState::kInf;
  bool early_stopped = false;
  double seconds = 0.0;
  std::vector<EpochRecord> history;
};

class Trainer {
 public:
  /// The arena and the optimizer must outlive the trainer.
  Trainer(ParameterArena& arena, Optimizer& optimizer, TrainerOptions options = {});

  /// Train from `state().epoch` until `max_epochs` or the stopping rule. `train_step(epoch)`
  /// must run the forward and backward passes and return the training loss; a non-finite
  /// loss throws attend::Error. `evaluate()` runs with gradients off.
  TrainResult fit(const std::function<double(int epoch)>& train_step,
                  const std::function<EvalMetrics()>& evaluate);

  /// As fit, with `batches(epoch)` optimizer steps per epoch (mini-batch training): for each
  /// batch b, zero the gradients, batch_step(epoch, b) (forward and backward of that batch;
  /// returns its loss), clip, optimizer.step. The epoch's training loss is the mean of its
  /// batches' losses; the stopping rule sees one evaluation per epoch.
  TrainResult fit_batches(const std::function<int64_t(int epoch)>& batches,
                          const std::function<double(int epoch, int64_t batch)>& batch_step,
                          const std::function<EvalMetrics()>& evaluate);

  const TrainerState& state() const { return state_; }
  /// Continue from a saved state; a negative epoch, a best epoch not before it or best
  /// parameters that do not fit the arena are an InputError (the state comes from a file).
  void load_state(TrainerState state);

 private:
  /// Update the stopping rule and best parameters with one epoch's metrics.
  void observe(const EvalMetrics& metrics);

  ParameterArena& arena_;
  Optimizer& optimizer_;
  TrainerOptions options_;
  TrainerState state_;
};

}  // namespace attend
