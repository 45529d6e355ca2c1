#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <sstream>

#include "attend/core/adam.hpp"
#include "attend/core/error.hpp"
#include "attend/core/layers/linear.hpp"
#include "attend/core/parallel.hpp"
#include "attend/core/sgd.hpp"
#include "attend/core/trainer.hpp"
#include "attend/core/training_checkpoint.hpp"
#include "grad_check.hpp"
#include "temp_dir.hpp"

using namespace attend;
using attend::testing::random_tensor;
using Catch::Contains;

namespace {

TrainerOptions quiet_options() {
  TrainerOptions o;
  o.progress.mode = ProgressMode::kSilent;
  return o;
}

/// Quiet options for a scripted early-stopping scenario.
TrainerOptions stopping_options(StoppingRule rule, int max_epochs, int patience) {
  TrainerOptions o = quiet_options();
  o.rule = rule;
  o.max_epochs = max_epochs;
  o.patience = patience;
  return o;
}

// A scripted run: one parameter that SGD (lr 1, gradient -1) raises by 1 per epoch, so after
// epoch e it holds e + 1; `evaluate` replays fixed losses and metrics.
struct Scripted {
  Scripted(std::vector<double> losses, std::vector<double> metrics)
      : losses(std::move(losses)), metrics(std::move(metrics)) {}
  TrainResult run(TrainerOptions options) {
    Trainer trainer(arena, sgd, std::move(options));
    int epoch_seen = 0;
    return trainer.fit(
        [&](int epoch) {
          epoch_seen = epoch;
          p.grad_mut()[0] = -1.0f;
          return 1.0;
        },
        [&] { return EvalMetrics{losses.at(epoch_seen), metrics.at(epoch_seen), {}}; });
  }
  std::vector<double> losses, metrics;
  Var p{Tensor({1}, 0.0f), true};
  ParameterArena arena{{{"p", p}}};
  Sgd sgd{SgdOptions{1.0}};
};

// Mean squared error, written here with Var::from_op (sums in double, in order).
Var mse(const Var& pred, const Tensor& target) {
  const Tensor& y = pred.value();
  double s = 0.0;
  for (int64_t i = 0; i < y.numel(); ++i) s += double(y[i] - target[i]) * (y[i] - target[i]);
  const double n = double(y.numel());
  return Var::from_op(Tensor::scalar(float(s / n)), {pred},
                      [pred, target, n](const Tensor&, const Tensor& g) {
                        const Tensor& yv = pred.value();
                        Tensor& gy = pred.grad_mut();
                        const float scale = float(2.0 * g[0] / n);
                        for (int64_t i = 0; i < yv.numel(); ++i) {
                          gy[i] += scale * (yv[i] - target[i]);
                        }
                      });
}

// Two stacked Linear layers: [600, 64] -> [600, 32] -> [600, 16].
class TwoLayers : public Module {
 public:
  explicit TwoLayers(uint64_t seed) {
    first = &add_child("first", std::make_unique<Linear>(LinearOptions{64, 32, true, seed}));
    second = &add_child("second", std::make_unique<Linear>(LinearOptions{32, 16, true, seed + 1}));
  }
  std::string type_name() const override { return "two_layers"; }
  Json config() const override { return Json::object(); }
  Var forward(const Var& x) const { return second->forward(first->forward(x)); }
  Linear* first;
  Linear* second;
};

struct Data {
  Tensor x_train = random_tensor({600, 64}, 1), y_train = random_tensor({600, 16}, 2);
  Tensor x_val = random_tensor({200, 64}, 3), y_val = random_tensor({200, 16}, 4);
};

// Everything a run needs, built fresh: model, arena, optimizer, trainer.
struct Run {
  Run(const Data& data, TrainerOptions options, uint64_t seed = 5)
      : data(data), model(seed), arena(model.named_parameters()),
        adam(AdamOptions{0.02, 0.9, 0.999, 1e-8, 1e-3}), trainer(arena, adam, std::move(options)) {}
  TrainResult fit() {
    return trainer.fit(
        [&](int) {
          Var loss = mse(model.forward(Var(data.x_train)), data.y_train);
          loss.backward();
          return double(loss.value().item());
        },
        [&] {
          const double loss = mse(model.forward(Var(data.x_val)), data.y_val).value().item();
          return EvalMetrics{loss, -loss, {{"neg", -1.0}}};
        });
  }
  std::vector<float> values() const { return {arena.values().begin(), arena.values().end()}; }
  const Data& data;
  TwoLayers model;
  ParameterArena arena;
  Adam adam;
  Trainer trainer;
};

TrainerOptions training_options(int max_epochs, bool restore_best) {
  TrainerOptions o = quiet_options();
  o.max_epochs = max_epochs;
  o.patience = 4;
  o.clip_grad_norm = 0.5;
  o.restore_best = restore_best;
  return o;
}

}  // namespace

TEST_CASE("early stopping follows the GAT rule and restores the best epoch", "[core]") {
  // epoch:        0     1     2     3     4     5     6     7
  Scripted s({1.00, 0.90, 0.95, 0.95, 0.95, 0.95, 0.95, 0.50},
             {0.50, 0.60, 0.60, 0.70, 0.60, 0.60, 0.60, 0.90});
  // 2 is bad (nothing strictly better), 3 improves the metric, 4, 5, 6 are bad: with
  // patience 3 the run stops after epoch 6 and never sees epoch 7.
  TrainerOptions o = stopping_options(StoppingRule::kBestMetric, 8, 3);
  int hooks = 0;
  o.on_epoch_end = [&](const TrainerState& st) {
    ++hooks;
    CHECK(st.epoch == hooks);
  };
  const TrainResult r = s.run(o);
  CHECK(r.epochs_run == 7);
  CHECK(r.early_stopped);
  CHECK(hooks == 7);
  CHECK(r.best_epoch == 3);
  CHECK(r.best_val_metric == 0.70);
  CHECK(r.best_val_loss == 0.95);
  REQUIRE(r.history.size() == 7);
  CHECK(r.history[2].eval.val_loss == 0.95);
  CHECK(s.arena.values()[0] == 4.0f);  // the parameters after epoch 3
}

TEST_CASE("a lower loss keeps training going, and ties in the metric go to the lower loss", "[core]") {
  // epoch:        0     1     2     3     4     5
  Scripted s({1.00, 0.80, 0.60, 0.90, 0.55, 0.70},
             {0.50, 0.70, 0.70, 0.70, 0.60, 0.70});
  // patience 2: 3 is bad, 4 lowers the loss, 5 is bad: no stop
  const TrainerOptions o = stopping_options(StoppingRule::kBestMetric, 6, 2);
  const TrainResult r = s.run(o);
  CHECK(r.epochs_run == 6);
  CHECK_FALSE(r.early_stopped);
  CHECK(r.best_epoch == 2);  // metric 0.7 first reached at 1, with a lower loss at 2
  CHECK(s.arena.values()[0] == 3.0f);
}

TEST_CASE("the GAT reference rule counts ties and keeps parameters only when both improve", "[core]") {
  // epoch:        0     1     2     3     4     5     6     7
  Scripted s({1.00, 0.90, 0.95, 0.95, 0.95, 0.95, 0.95, 0.50},
             {0.50, 0.60, 0.60, 0.70, 0.60, 0.60, 0.60, 0.90});
  // 0 and 1 improve both (kept); 2 ties the metric and 3 raises it (good, not kept: the
  // loss is higher); 4, 5, 6 are bad: with patience 3 the run stops after epoch 6.
  TrainerOptions o = stopping_options(StoppingRule::kGatReference, 8, 3);
  const TrainResult r = s.run(o);
  CHECK(r.epochs_run == 7);
  CHECK(r.best_epoch == 1);
  CHECK(s.arena.values()[0] == 2.0f);  // the parameters after epoch 1
  // With patience 2 the tie at epoch 2 still counts as good: 4 and 5 are bad, stop after 5.
  Scripted t({1.00, 0.90, 0.95, 0.95, 0.95, 0.95, 0.95, 0.50},
             {0.50, 0.60, 0.60, 0.70, 0.60, 0.60, 0.60, 0.90});
  o.patience = 2;
  CHECK(t.run(o).epochs_run == 6);
}

TEST_CASE("the GAT accuracy rule keeps the last epoch that ties the best metric, and the loss chooses nothing", "[core]") {
  // epoch:        0     1     2     3     4     5     6
  Scripted s({1.00, 0.50, 0.90, 0.90, 0.90, 0.90, 0.90},
             {0.50, 0.60, 0.60, 0.55, 0.55, 0.55, 0.70});
  // 2 ties the metric with a higher loss: kept (the reference rule keeps 1); 3, 4, 5 are
  // bad: with patience 3 the run stops after epoch 5.
  TrainerOptions o = stopping_options(StoppingRule::kGatAccuracy, 7, 3);
  const TrainResult r = s.run(o);
  CHECK(r.epochs_run == 6);
  CHECK(r.best_epoch == 2);
  CHECK(r.best_val_loss == 0.90);
  CHECK(s.arena.values()[0] == 3.0f);  // the parameters after epoch 2
  Scripted ref({1.00, 0.50, 0.90, 0.90, 0.90, 0.90, 0.90}, {0.50, 0.60, 0.60, 0.55, 0.55, 0.55, 0.70});
  o.rule = StoppingRule::kGatReference;
  CHECK(ref.run(o).best_epoch == 1);
  // A falling loss alone is not an improvement: with patience 2 the run stops after epoch 3.
  Scripted t({1.0, 0.9, 0.8, 0.7, 0.6}, {0.5, 0.6, 0.5, 0.5, 0.5});
  o = stopping_options(StoppingRule::kGatAccuracy, 5, 2);
  const TrainResult rt = t.run(o);
  CHECK(rt.epochs_run == 4);
  CHECK(rt.best_epoch == 1);
  Scripted u({1.0, 0.9, 0.8, 0.7, 0.6}, {0.5, 0.6, 0.5, 0.5, 0.5});
  o.rule = StoppingRule::kGatReference;
  CHECK(u.run(o).epochs_run == 5);
}

TEST_CASE("without restore_best the last parameters stay", "[core]") {
  Scripted s({1.0, 0.5, 0.9}, {0.1, 0.9, 0.2});
  TrainerOptions o = quiet_options();
  o.max_epochs = 3;
  o.restore_best = false;
  const TrainResult r = s.run(o);
  CHECK(r.best_epoch == 1);
  CHECK(s.arena.values()[0] == 3.0f);
}

TEST_CASE("a non-finite training loss stops training with an error", "[core]") {
  Var p(Tensor({1}, 0.0f), true);
  ParameterArena arena({{"p", p}});
  Sgd sgd;
  Trainer trainer(arena, sgd, quiet_options());
  CHECK_THROWS_WITH(trainer.fit([](int) { return std::nan(""); }, [] { return EvalMetrics{}; }),
                    Catch::Contains("training loss is nan at epoch 0"));
  // The settings' fault (a model file's learning rate), so bad input: exit code 2, not internal.
  CHECK_THROWS_AS(trainer.fit([](int) { return std::nan(""); }, [] { return EvalMetrics{}; }), InputError);
}

TEST_CASE("training is bit-identical for 1 and 2 threads", "[core]") {
  const Data data;
  auto train = [&](int threads) {
    set_num_threads(threads);
    Run run(data, training_options(12, true));
    const TrainResult r = run.fit();
    return std::make_pair(run.values(), r.history.back().train_loss);
  };
  const int before = num_threads();
  const auto one = train(1), two = train(2);
  set_num_threads(before);
  CHECK(one.first == two.first);
  CHECK(one.second == two.second);
}

TEST_CASE("a resumed run continues bit-identically", "[core]") {
  const Data data;
  Run whole(data, training_options(20, true));
  const TrainResult expected = whole.fit();
  // The validation loss turns up (random targets) and the run stops early after epoch 10:
  // it stops only if the bad-epoch count and the best parameters cross the checkpoint.
  INFO("best epoch " << expected.best_epoch << ", epochs run " << expected.epochs_run);
  REQUIRE(expected.early_stopped);
  REQUIRE(expected.epochs_run > 10);
  REQUIRE(expected.best_epoch < 10);  // the best parameters cross it too
  CHECK(expected.history.back().train_loss < expected.history.front().train_loss);

  // First 10 epochs, then everything a checkpoint would hold, kept in memory.
  TrainerState saved_trainer;
  OptimizerState saved_optimizer;
  Tensor saved_values;
  {
    Run first(data, training_options(10, false));
    first.fit();
    saved_trainer = first.trainer.state();
    saved_optimizer = first.adam.state();
    saved_values = first.arena.snapshot();
  }
  CHECK(saved_trainer.epoch == 10);
  CHECK(saved_trainer.bad_epochs > 0);
  // A fresh model (another seed: its values must come from the checkpoint), arena,
  // optimizer and trainer.
  Run second(data, training_options(20, true), 99);
  second.arena.restore(saved_values);
  second.adam.load_state(saved_optimizer);
  second.trainer.load_state(saved_trainer);
  const TrainResult resumed = second.fit();

  CHECK(second.values() == whole.values());
  CHECK(resumed.epochs_run == expected.epochs_run);
  CHECK(resumed.early_stopped);
  CHECK(resumed.best_epoch == expected.best_epoch);
  CHECK(resumed.best_val_metric == expected.best_val_metric);
  REQUIRE(resumed.history.size() == expected.history.size());
  for (std::size_t e = 0; e < expected.history.size(); ++e) {
    CHECK(resumed.history[e].train_loss == expected.history[e].train_loss);
    CHECK(resumed.history[e].eval.val_loss == expected.history[e].eval.val_loss);
  }
}

TEST_CASE("trainer state must fit the arena", "[core]") {
  Var p(Tensor({3}, 0.0f), true);
  ParameterArena arena({{"p", p}});
  Sgd sgd;
  Trainer trainer(arena, sgd, quiet_options());
  TrainerState st;
  st.epoch = 5;
  st.best_epoch = 2;
  st.best_parameters = Tensor({4});
  CHECK_THROWS_AS(trainer.load_state(st), InputError);
}

TEST_CASE("a run resumed from a checkpoint file continues bit-identically", "[core][io]") {
  const Data data;
  Run whole(data, training_options(20, true));
  whole.fit();

  attend::testing::TempDir dir;
  const std::string path = (dir.path() / "run.h5").string();
  {
    Run first(data, training_options(10, false));
    first.fit();
    const TrainerState state = first.trainer.state();
    save_checkpoint(path, capture_checkpoint(first.model, first.arena, &first.adam, &state));
  }
  const CheckpointData saved = load_checkpoint(path);
  CHECK(saved.epoch == 10);
  CHECK(saved.optimizer_type == "adam");
  Run second(data, training_options(20, true), 99);
  resume_from_checkpoint(saved, second.arena, second.adam, second.trainer);
  second.fit();
  CHECK(second.values() == whole.values());
}

TEST_CASE("resuming refuses a damaged or foreign training checkpoint before the first step", "[core][io]") {
  // Issue #18: an optimizer moment that was NaN or of the wrong shape, or an epoch of -3,
  // was an internal error at the first step or was accepted.
  const Data data;
  attend::testing::TempDir dir;
  CheckpointData good;
  {
    Run first(data, training_options(3, false));
    first.fit();
    const TrainerState state = first.trainer.state();
    good = capture_checkpoint(first.model, first.arena, &first.adam, &state);
  }
  const auto saved_and_loaded = [&](const CheckpointData& data, const std::string& name) {
    const std::string path = dir.file(name);
    save_checkpoint(path, data);
    return load_checkpoint(path);
  };
  CheckpointData nan_moment = good;
  nan_moment.optimizer_state[1].second[0] = std::nanf("");
  CHECK_THROWS_WITH(saved_and_loaded(nan_moment, "nan.h5"), Contains("a non-finite value (nan)"));

  CheckpointData negative = good;
  negative.epoch = -3;
  CHECK_THROWS_WITH(saved_and_loaded(negative, "negative.h5"), Contains("'epoch' of '/trainer': negative (-3)"));

  CheckpointData other_epoch = good;
  other_epoch.epoch = 2;
  Run second(data, training_options(20, true), 99);
  CHECK_THROWS_WITH(resume_from_checkpoint(saved_and_loaded(other_epoch, "other.h5"), second.arena, second.adam, second.trainer),
                    Contains("does not fit the file's epoch 2"));

  CheckpointData short_moment = good;
  short_moment.optimizer_state[1].second = Tensor({5});
  CHECK_THROWS_AS(resume_from_checkpoint(saved_and_loaded(short_moment, "short.h5"), second.arena, second.adam, second.trainer),
                  InputError);
  CHECK(second.adam.steps() == 0);  // nothing was taken from a refused checkpoint
  CHECK_NOTHROW(resume_from_checkpoint(saved_and_loaded(good, "good.h5"), second.arena, second.adam, second.trainer));
}

TEST_CASE("a checkpoint rebuilds its model through the registry", "[core][io]") {
  Registry registry;
  Linear::register_into(registry);
  Linear model(LinearOptions{5, 3, true, 7});
  ParameterArena arena(model.named_parameters());
  const CheckpointData data = capture_checkpoint(model, arena, nullptr, nullptr);

  std::unique_ptr<Module> rebuilt = module_from_checkpoint(data, registry);
  REQUIRE(rebuilt->type_name() == "linear");
  ParameterArena rebuilt_arena(rebuilt->named_parameters());
  load_parameters(data, rebuilt_arena);
  CHECK(std::equal(arena.values().begin(), arena.values().end(), rebuilt_arena.values().begin()));

  CHECK_THROWS_WITH(module_from_checkpoint(data, Registry()), Catch::Matchers::Contains("unknown layer 'linear'"));
  Linear other(LinearOptions{5, 4, true, 7});
  ParameterArena other_arena(other.named_parameters());
  CHECK_THROWS_WITH(load_parameters(data, other_arena), Catch::Matchers::Contains("has shape [5, 3], the model expects [5, 4]"));
}

TEST_CASE("fit_batches makes one optimizer step per batch and reports the mean batch loss", "[core]") {
  // One parameter that SGD (lr 1, gradient -1 per batch) raises by 1 per batch; epoch e has
  // e + 1 batches, batch b reports loss b.
  Var p{Tensor({1}, 0.0f), true};
  ParameterArena arena{{{"p", p}}};
  Sgd sgd{SgdOptions{1.0}};
  TrainerOptions o = quiet_options();
  o.max_epochs = 3;
  o.patience = 0;
  o.restore_best = false;
  Trainer trainer(arena, sgd, o);
  std::vector<float> seen;  // the parameter at each batch: gradients were zeroed before it
  const TrainResult r = trainer.fit_batches([](int epoch) -> int64_t { return epoch + 1; },
                                            [&](int, int64_t b) {
                                              seen.push_back(arena.values()[0]);
                                              CHECK(arena.grads()[0] == 0.0f);
                                              arena.grads()[0] = -1.0f;
                                              return static_cast<double>(b);
                                            },
                                            [] { return EvalMetrics{0.0, 0.0, {}}; });
  CHECK(seen == std::vector<float>{0, 1, 2, 3, 4, 5});
  REQUIRE(r.history.size() == 3);
  CHECK(r.history[0].train_loss == 0.0);
  CHECK(r.history[1].train_loss == 0.5);
  CHECK(r.history[2].train_loss == 1.0);
  CHECK(arena.values()[0] == 6.0f);
  Trainer diverging(arena, sgd, o);
  CHECK_THROWS_WITH(diverging.fit_batches([](int) -> int64_t { return 4; },
                                          [](int, int64_t b) { return b == 2 ? std::nan("") : 1.0; },
                                          [] { return EvalMetrics{}; }),
                    Contains("at epoch 0, batch 2"));
}

TEST_CASE("fit_batches reports progress per batch on long epochs only", "[core]") {
  Var p{Tensor({1}, 0.0f), true};
  ParameterArena arena{{{"p", p}}};
  Sgd sgd{SgdOptions{0.1}};
  std::ostringstream out;
  TrainerOptions o;
  o.progress.mode = ProgressMode::kPlain;
  o.progress.every = 2;
  o.progress.out = &out;
  o.max_epochs = 2;
  o.patience = 0;
  o.long_epoch_batches = 4;
  Trainer trainer(arena, sgd, o);
  // Epoch 0 has 3 batches (short: no batch lines), epoch 1 has 4 (lines at batches 2 and 4).
  trainer.fit_batches([](int epoch) -> int64_t { return 3 + epoch; }, [](int, int64_t) { return 1.0; },
                      [] { return EvalMetrics{}; });
  const std::string text = out.str();
  CHECK(text.find("batch 2/4") != std::string::npos);
  CHECK(text.find("batch 4/4") != std::string::npos);
  CHECK(text.find("batch 2/3") == std::string::npos);
  CHECK(text.find("epoch 2/2") != std::string::npos);
}
