#pragma once
/// Adam (Kingma & Ba, 2015, Algorithm 1) and AdamW (Loshchilov & Hutter, 2019), with the
/// semantics of PyTorch's `torch.optim.Adam` / `AdamW` (eps added after the square root of the
/// bias-corrected second moment). With t the step number (from 1):
///   Adam:  g = grad + weight_decay * p                 (L2 penalty inside the gradient)
///   AdamW: p = p * (1 - lr * weight_decay); g = grad   (decoupled decay)
///   m = beta1 m + (1 - beta1) g;  v = beta2 v + (1 - beta2) g^2
///   p -= lr * (m / (1 - beta1^t)) / (sqrt(v / (1 - beta2^t)) + eps)

#include "attend/core/option_list.hpp"
#include "attend/core/optimizer.hpp"

namespace attend {

struct AdamOptions {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.0;  ///< L2 in the gradient (Adam) or decoupled (AdamW)

  /// The options declared once: the JSON keys, ranges and documentation.
  static const OptionList<AdamOptions>& option_list();
  /// Read from JSON (keys as the field names; absent keys keep the defaults).
  static AdamOptions from_json(const Json& config) { return option_list().from_json(config); }
  Json to_json() const { return option_list().to_json(*this); }
};

class Adam : public Optimizer {
 public:
  /// Throws attend::InputError on options out of their ranges (option_list()).
  explicit Adam(AdamOptions options = {});

  /// Parallel over fixed blocks of the flat buffers.
  void step(ParameterArena& arena) override;
  std::string type_name() const override { return "adam"; }
  Json config() const override;
  /// `step`, `m` (first moment) and `v` (second moment).
  OptimizerState state() const override;
  void load_state(const OptimizerState& state) override;

 protected:
  /// AdamW's constructor: decay decoupled from the gradient.
  Adam(AdamOptions options, bool decoupled);

 private:
  AdamOptions options_;
  bool decoupled_ = false;
  std::vector<float> m_;
  std::vector<float> v_;
};

/// Adam with decoupled weight decay.
class AdamW : public Adam {
 public:
  /// PyTorch's AdamW default weight decay is 0.01; ours is the one in `options`.
  explicit AdamW(AdamOptions options = {}) : Adam(options, true) {}
  std::string type_name() const override { return "adamw"; }
};

}  // namespace attend
