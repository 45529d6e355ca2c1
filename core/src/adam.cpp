#include "attend/core/adam.hpp"

#include <cmath>

#include "attend/core/options_json.hpp"
#include "attend/core/parallel.hpp"

namespace attend {

namespace {
constexpr int64_t kBlock = 16384;
}  // namespace

const OptionList<AdamOptions>& AdamOptions::option_list() {
  using O = AdamOptions;
  static const OptionList<O> list =
      OptionList<O>("adam")
          .add("lr", &O::lr, "learning rate", OptionRange::positive())
          .add("beta1", &O::beta1, "decay of the first moment's running mean", OptionRange::fraction())
          .add("beta2", &O::beta2, "decay of the second moment's running mean", OptionRange::fraction())
          .add("eps", &O::eps, "added to the second moment's square root", OptionRange::positive())
          .add("weight_decay", &O::weight_decay,
               "adam: L2 penalty added to the gradient; adamw: decay of the weights decoupled from the moments",
               OptionRange::at_least(0.0));
  return list;
}

Adam::Adam(AdamOptions options) : Adam(options, false) {}

Adam::Adam(AdamOptions options, bool decoupled) : options_(options), decoupled_(decoupled) {
  AdamOptions::option_list().check(options);
  set_lr(options.lr);
}

Json Adam::config() const {
  AdamOptions o = options_;
  o.lr = lr_;
  return o.to_json();
}

void Adam::step(ParameterArena& arena) {
  prepare(arena.trainable_size(), {&m_, &v_});
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
  parallel_for_blocks(arena.trainable_size(), kBlock, [&](int64_t lo, int64_t hi) {
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
