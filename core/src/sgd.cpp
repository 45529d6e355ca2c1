#include "attend/core/sgd.hpp"

#include <cmath>

#include "attend/core/options_json.hpp"
#include "attend/core/parallel.hpp"

namespace attend {

namespace {
constexpr int64_t kBlock = 16384;
}  // namespace

const OptionList<SgdOptions>& SgdOptions::option_list() {
  using O = SgdOptions;
  static const OptionList<O> list =
      OptionList<O>("sgd")
          .add("lr", &O::lr, "learning rate", OptionRange::positive())
          .add("momentum", &O::momentum, "heavy-ball momentum (PyTorch's form, no dampening)", OptionRange::fraction())
          .add("nesterov", &O::nesterov, "Nesterov momentum; needs momentum > 0")
          .add("weight_decay", &O::weight_decay, "L2 penalty added to the gradient", OptionRange::at_least(0.0));
  return list;
}

Sgd::Sgd(SgdOptions options) : options_(options) {
  SgdOptions::option_list().check(options);
  require_optimizer_option(!options.nesterov || options.momentum > 0.0, "sgd", "nesterov needs momentum > 0",
                           options.momentum);
  set_lr(options.lr);
}

Json Sgd::config() const {
  SgdOptions o = options_;
  o.lr = lr_;
  return o.to_json();
}

void Sgd::step(ParameterArena& arena) {
  const bool use_momentum = options_.momentum > 0.0;
  prepare(arena.trainable_size(), use_momentum ? std::vector<std::vector<float>*>{&momentum_buffer_}
                                     : std::vector<std::vector<float>*>{});
  const float lr = static_cast<float>(lr_);
  const float mu = static_cast<float>(options_.momentum);
  const float wd = static_cast<float>(options_.weight_decay);
  const bool first = step_ == 0, nesterov = options_.nesterov;
  float* p = arena.values().data();
  const float* grad = arena.grads().data();
  float* buf = momentum_buffer_.data();
  parallel_for_blocks(arena.trainable_size(), kBlock, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      float g = grad[i] + wd * p[i];
      if (use_momentum) {
        buf[i] = first ? g : mu * buf[i] + g;
        g = nesterov ? g + mu * buf[i] : buf[i];
      }
      p[i] -= lr * g;
    }
  });
  ++step_;
}

OptimizerState Sgd::state() const { return make_state({{"momentum_buffer", &momentum_buffer_}}); }

void Sgd::load_state(const OptimizerState& state) {
  load_entries(state, {{"momentum_buffer", &momentum_buffer_}});
}

}  // namespace attend
