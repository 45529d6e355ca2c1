#pragma once
/// Optimizer: updates the parameters of a ParameterArena from its gradients.
///
/// An optimizer's per-parameter state (moments, momentum buffers) is kept as flat tensors in
/// the arena's layout, so saving and restoring it is a list of named tensors. Updates run in
/// parallel over fixed blocks of the flat buffers; every element's update is computed on its
/// own, so the result is bit-identical for any thread count.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "attend/core/parameter_arena.hpp"

namespace attend {

using Json = nlohmann::json;

/// Named state tensors of an optimizer (`step`, `m`, `v`, ...).
using OptimizerState = std::vector<std::pair<std::string, Tensor>>;

/// Base of the optimizers: learning rate, step count and state checks.
class Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  /// One update of every value in `arena` from its gradient. The first step sizes the state
  /// to the arena; later steps check that the arena still has that size.
  virtual void step(ParameterArena& arena) = 0;
  /// "sgd", "adam" or "adamw" (the name `make_optimizer` takes).
  virtual std::string type_name() const = 0;
  /// The options (JSON) that rebuild this optimizer with `make_optimizer`.
  virtual Json config() const = 0;
  /// The state: `step` (shape [1], the number of steps taken) and flat per-value buffers
  /// ([arena size], or [0] before the first step).
  virtual OptimizerState state() const = 0;
  /// Restore a state saved by `state()` of an optimizer of the same type; throws
  /// attend::InputError (the state comes from a checkpoint file) naming the entry when one is
  /// missing, unknown, or of the wrong size.
  virtual void load_state(const OptimizerState& state) = 0;

  /// Learning rate (schedules change it between steps).
  double lr() const { return lr_; }
  /// Set the learning rate (>= 0) used from the next step on.
  void set_lr(double lr);
  /// Steps taken so far.
  int64_t steps() const { return step_; }

 protected:
  using Buffers = std::vector<std::pair<std::string, std::vector<float>*>>;
  using ConstBuffers = std::vector<std::pair<std::string, const std::vector<float>*>>;

  /// Size `buffers` to `n` zeros before the first step; afterwards check that they hold `n`.
  void prepare(int64_t n, const std::vector<std::vector<float>*>& buffers) const;
  /// `step` followed by the named flat buffers, as tensors.
  OptimizerState make_state(const ConstBuffers& buffers) const;
  /// Check `state` (exactly `step` and the names in `buffers`, each once; `step` a
  /// non-negative whole number; all buffers one size), then take the step count and copy the
  /// buffers. Nothing changes when a check fails.
  void load_entries(const OptimizerState& state, const Buffers& buffers);

  double lr_ = 1e-3;
  int64_t step_ = 0;
};

/// Throw attend::InputError "<optimizer>: <what>, got <value>" unless `ok`. Optimizer options
/// come from model files and flags, so a value out of range is bad input (as for layers).
void require_optimizer_option(bool ok, const std::string& optimizer, const std::string& what, double value);

/// Build an optimizer by type name ("sgd", "adam", "adamw") from its config JSON; an unknown
/// name or option throws attend::InputError listing the valid ones.
std::unique_ptr<Optimizer> make_optimizer(const std::string& type, const Json& config);

}  // namespace attend
