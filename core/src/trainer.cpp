#include "attend/core/trainer.hpp"

#include <chrono>
#include <cmath>
#include <optional>
#include <sstream>

#include "attend/core/error.hpp"

namespace attend {

Trainer::Trainer(ParameterArena& arena, Optimizer& optimizer, TrainerOptions options)
    : arena_(arena), optimizer_(optimizer), options_(std::move(options)) {
  ATTEND_CHECK(options_.max_epochs >= 0, "max_epochs must be >= 0, got " << options_.max_epochs);
  ATTEND_CHECK(options_.patience >= 0, "patience must be >= 0, got " << options_.patience);
  ATTEND_CHECK(options_.clip_grad_norm >= 0.0,
               "clip_grad_norm must be >= 0, got " << options_.clip_grad_norm);
}

void Trainer::load_state(TrainerState state) {
  // The state comes from a file (a checkpoint): what does not fit is bad input.
  if (state.epoch < 0) throw InputError("trainer state: negative epoch " + std::to_string(state.epoch));
  if (state.best_epoch >= state.epoch) {
    throw InputError("trainer state: best epoch " + std::to_string(state.best_epoch) + " not before epoch " +
                     std::to_string(state.epoch));
  }
  if (state.best_epoch >= 0 && state.best_parameters.numel() != arena_.size()) {
    throw InputError("trainer state: best parameters hold " + std::to_string(state.best_parameters.numel()) +
                     " values, the model has " + std::to_string(arena_.size()));
  }
  state_ = std::move(state);
}

void Trainer::observe(const EvalMetrics& metrics) {
  const double loss = metrics.val_loss, metric = metrics.val_metric;
  const StoppingRule rule = options_.rule;
  // Best parameters (NaN never wins). kBestMetric: highest metric, then lowest loss;
  // kGatReference: metric and loss both at least as good as any seen so far; kGatAccuracy:
  // metric at least as good as any seen so far.
  bool best = false, improved = false;
  switch (rule) {
    case StoppingRule::kBestMetric:
      best = metric > state_.best_val_metric || (metric == state_.best_val_metric && loss < state_.best_val_loss);
      improved = loss < state_.min_val_loss || metric > state_.max_val_metric;
      break;
    case StoppingRule::kGatReference:
      best = metric >= state_.max_val_metric && loss <= state_.min_val_loss;
      improved = loss <= state_.min_val_loss || metric >= state_.max_val_metric;  // ties count
      break;
    case StoppingRule::kGatAccuracy:
      best = metric >= state_.max_val_metric;
      improved = best;
      break;
  }
  if (best) {
    state_.best_epoch = state_.epoch;
    state_.best_val_metric = metric;
    state_.best_val_loss = loss;
    arena_.snapshot_into(state_.best_parameters);
  }
  if (loss < state_.min_val_loss) state_.min_val_loss = loss;
  if (metric > state_.max_val_metric) state_.max_val_metric = metric;
  state_.bad_epochs = improved ? 0 : state_.bad_epochs + 1;
  if (options_.patience > 0 && state_.bad_epochs >= options_.patience) state_.stopped = true;
}

TrainResult Trainer::fit(const std::function<double(int epoch)>& train_step,
                         const std::function<EvalMetrics()>& evaluate) {
  ATTEND_CHECK(train_step && evaluate, "fit needs a train_step and an evaluate function");
  return fit_batches([](int) -> int64_t { return 1; }, [&](int epoch, int64_t) { return train_step(epoch); },
                     evaluate);
}

TrainResult Trainer::fit_batches(const std::function<int64_t(int epoch)>& batches,
                                 const std::function<double(int epoch, int64_t batch)>& batch_step,
                                 const std::function<EvalMetrics()>& evaluate) {
  ATTEND_CHECK(batches && batch_step && evaluate, "fit_batches needs batches, a batch_step and an evaluate function");
  ProgressLine progress("epoch", options_.max_epochs, options_.progress);
  const auto start = std::chrono::steady_clock::now();
  const double seconds_before = state_.seconds;
  while (!state_.stopped && state_.epoch < options_.max_epochs) {
    const int epoch = state_.epoch;
    const int64_t count = batches(epoch);
    ATTEND_CHECK(count >= 1, "an epoch needs at least one batch, got " << count);
    std::optional<ProgressLine> batch_progress;
    if (count >= options_.long_epoch_batches) batch_progress.emplace("batch", count, options_.progress);
    double loss_sum = 0.0;
    for (int64_t b = 0; b < count; ++b) {
      arena_.zero_grad();
      const double batch_loss = batch_step(epoch, b);
      if (!std::isfinite(batch_loss)) {  // the settings' fault (the learning rate), not a bug: bad input
        std::ostringstream what;
        what << "training loss is " << batch_loss << " at epoch " << epoch;
        if (count > 1) what << ", batch " << b;
        what << " (try a lower learning rate)";
        throw InputError(what.str());
      }
      if (options_.clip_grad_norm > 0.0) arena_.clip_grad_norm(options_.clip_grad_norm);
      optimizer_.step(arena_);
      loss_sum += batch_loss;
      if (batch_progress) batch_progress->update(b + 1, {{"epoch", epoch + 1}, {"loss", batch_loss}});
    }
    if (batch_progress) batch_progress->finish();
    const double train_loss = loss_sum / static_cast<double>(count);
    EvalMetrics metrics;
    {
      NoGradGuard no_grad;
      metrics = evaluate();
    }
    observe(metrics);
    state_.history.push_back(EpochRecord{epoch, train_loss, metrics});
    ++state_.epoch;
    state_.seconds =
        seconds_before +
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    std::vector<std::pair<std::string, double>> shown{
        {"loss", train_loss}, {"val_loss", metrics.val_loss},
        {options_.metric_name, metrics.val_metric}};
    shown.insert(shown.end(), metrics.extras.begin(), metrics.extras.end());
    progress.update(state_.epoch, shown, state_.stopped);
    if (options_.on_epoch_end) options_.on_epoch_end(state_);
  }
  progress.finish();

  if (options_.restore_best && state_.best_epoch >= 0) arena_.restore(state_.best_parameters);
  TrainResult result;
  result.epochs_run = state_.epoch;
  result.best_epoch = state_.best_epoch;
  result.best_val_metric = state_.best_val_metric;
  result.best_val_loss = state_.best_val_loss;
  result.early_stopped = state_.stopped;
  result.seconds = state_.seconds;
  result.history = state_.history;
  return result;
}

}  // namespace attend
