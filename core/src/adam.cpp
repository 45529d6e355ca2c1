#include "attend/core/adam.hpp"

#include <cmath>

#include "attend/core/options_json.hpp"
#include "attend/core/parallel.hpp"

namespace attend {

namespace {
constexpr int64_t kBlock = 16384;
}  // namespace

AdamOptions AdamOptions::from_json(const Json& config) {
  check_option_keys(config, {"lr", "beta1", "beta2", "eps", "weight_decay"}, "adam");
  AdamOptions o;
  o.lr = option_or(config, "lr", o.lr, "adam");
  o.beta1 = option_or(config, "beta1", o.beta1, "adam");
  o.beta2 = option_or(config, "beta2", o.beta2, "adam");
  o.eps = option_or(config, "eps", o.eps, "adam");
  o.weight_decay = option_or(config, "weight_decay", o.weight_decay, "adam");
  return o;
}

Json AdamOptions::to_json() const {
  return Json{{"lr", lr}, {"beta1", beta1}, {"beta2", beta2}, {"eps", eps},
              {"weight_decay", weight_decay}};
}

Adam::Adam(AdamOptions options) : Adam(options, false) {}

Adam::Adam(AdamOptions options, bool decoupled) : options_(options), decoupled_(decoupled) {
  const std::string name = decoupled ? "adamw" : "adam";
  require_optimizer_option(std::isfinite(options.lr) && options.lr >= 0.0, name, "lr must be >= 0", options.lr);
  require_optimizer_option(options.beta1 >= 0.0 && options.beta1 < 1.0, name, "beta1 must be in [0, 1)",
                           options.beta1);
  require_optimizer_option(options.beta2 >= 0.0 && options.beta2 < 1.0, name, "beta2 must be in [0, 1)",
                           options.beta2);
  require_optimizer_option(std::isfinite(options.eps) && options.eps > 0.0, name, "eps must be > 0", options.eps);
  require_optimizer_option(std::isfinite(options.weight_decay) && options.weight_decay >= 0.0, name,
                           "weight_decay must be >= 0", options.weight_decay);
  set_lr(options.lr);
}

Json Adam::config() const {
  AdamOptions o = options_;
  o.lr = lr_;
  return o.to_json();
}

void Adam::step(ParameterArena& arena) {
  prepare(arena.size(), {&m_, &v_});
  const double t = static_cast<double>(step_ + 1);
  // Per-step scalars in double, then rounded once to float.
  const float step_size = static_cast<float>(lr_ / (1.0 - std::pow(options_.beta1, t)));
  const float inv_sqrt_bc2 = static_cast<float>(1.0 / std::sqrt(1.0 - std::pow(options_.beta2, t)));
  const float b1 = static_cast<float>(options_.beta1), b2 = static_cast<float>(options_.beta2);
  const float eps = static_cast<float>(options_.eps);
  const float wd = static_cast<float>(options_.weight_decay);
  const float decay = static_cast<float>(1.0 - lr_ * options_.weight_decay);
  const bool decoupled = decoupled_;
  float* p = arena.values().data();
  const float* grad = arena.grads().data();
  float* m = m_.data();
  float* v = v_.data();
  parallel_for_blocks(arena.size(), kBlock, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      float g = grad[i];
      if (decoupled) {
        p[i] *= decay;
      } else {
        g += wd * p[i];
      }
      m[i] = b1 * m[i] + (1.0f - b1) * g;
      v[i] = b2 * v[i] + (1.0f - b2) * g * g;
      p[i] -= step_size * m[i] / (std::sqrt(v[i]) * inv_sqrt_bc2 + eps);
    }
  });
  ++step_;
}

OptimizerState Adam::state() const { return make_state({{"m", &m_}, {"v", &v_}}); }

void Adam::load_state(const OptimizerState& state) { load_entries(state, {{"m", &m_}, {"v", &v_}}); }

}  // namespace attend
