#include "attend/core/sgd.hpp"

#include <cmath>

#include "attend/core/options_json.hpp"
#include "attend/core/parallel.hpp"

namespace attend {

namespace {
constexpr int64_t kBlock = 16384;
}  // namespace

SgdOptions SgdOptions::from_json(const Json& config) {
  check_option_keys(config, {"lr", "momentum", "nesterov", "weight_decay"}, "sgd");
  SgdOptions o;
  o.lr = option_or(config, "lr", o.lr, "sgd");
  o.momentum = option_or(config, "momentum", o.momentum, "sgd");
  o.nesterov = option_or(config, "nesterov", o.nesterov, "sgd");
  o.weight_decay = option_or(config, "weight_decay", o.weight_decay, "sgd");
  return o;
}

Json SgdOptions::to_json() const {
  return Json{{"lr", lr}, {"momentum", momentum}, {"nesterov", nesterov},
              {"weight_decay", weight_decay}};
}

Sgd::Sgd(SgdOptions options) : options_(options) {
  require_optimizer_option(std::isfinite(options.lr) && options.lr >= 0.0, "sgd", "lr must be >= 0", options.lr);
  require_optimizer_option(options.momentum >= 0.0 && options.momentum < 1.0, "sgd", "momentum must be in [0, 1)",
                           options.momentum);
  require_optimizer_option(!options.nesterov || options.momentum > 0.0, "sgd", "nesterov needs momentum > 0",
                           options.momentum);
  require_optimizer_option(std::isfinite(options.weight_decay) && options.weight_decay >= 0.0, "sgd",
                           "weight_decay must be >= 0", options.weight_decay);
  set_lr(options.lr);
}

Json Sgd::config() const {
  SgdOptions o = options_;
  o.lr = lr_;
  return o.to_json();
}

void Sgd::step(ParameterArena& arena) {
  const bool use_momentum = options_.momentum > 0.0;
  prepare(arena.size(), use_momentum ? std::vector<std::vector<float>*>{&momentum_buffer_}
                                     : std::vector<std::vector<float>*>{});
  const float lr = static_cast<float>(lr_);
  const float mu = static_cast<float>(options_.momentum);
  const float wd = static_cast<float>(options_.weight_decay);
  const bool first = step_ == 0, nesterov = options_.nesterov;
  float* p = arena.values().data();
  const float* grad = arena.grads().data();
  float* buf = momentum_buffer_.data();
  parallel_for_blocks(arena.size(), kBlock, [&](int64_t lo, int64_t hi) {
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
