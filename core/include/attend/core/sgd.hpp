#pragma once
/// Stochastic gradient descent with momentum, Nesterov momentum and L2 weight decay, with
/// PyTorch's `torch.optim.SGD` semantics (dampening 0):
///   g = grad + weight_decay * p
///   b = g on the first step, else momentum * b + g
///   p -= lr * (nesterov ? g + momentum * b : b)       (p -= lr * g when momentum is 0)

#include "attend/core/option_list.hpp"
#include "attend/core/optimizer.hpp"

namespace attend {

struct SgdOptions {
  double lr = 0.01;
  double momentum = 0.0;
  bool nesterov = false;      ///< needs momentum > 0
  double weight_decay = 0.0;  ///< L2 penalty added to the gradient

  /// The options declared once: the JSON keys, ranges and documentation.
  static const OptionList<SgdOptions>& option_list();
  /// Read from JSON (keys as the field names; absent keys keep the defaults).
  static SgdOptions from_json(const Json& config) { return option_list().from_json(config); }
  Json to_json() const { return option_list().to_json(*this); }
};

class Sgd : public Optimizer {
 public:
  /// Throws attend::Error on options out of range (momentum in [0, 1), decay >= 0).
  explicit Sgd(SgdOptions options = {});

  /// Parallel over fixed blocks of the flat buffers.
  void step(ParameterArena& arena) override;
  std::string type_name() const override { return "sgd"; }
  Json config() const override;
  /// `step` and `momentum_buffer` ([0] when momentum is 0).
  OptimizerState state() const override;
  void load_state(const OptimizerState& state) override;

 private:
  SgdOptions options_;
  std::vector<float> momentum_buffer_;
};

}  // namespace attend
