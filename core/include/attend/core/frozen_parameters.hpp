#pragma once
/// A scope in which a module's parameters take no gradient: training something else against a
/// fixed model (an explainer's masks or its mask network) differentiates only its own inputs.

#include <vector>

#include "attend/core/autodiff.hpp"
#include "attend/core/module.hpp"

namespace attend {

/// Turns off requires_grad on every parameter of `module` for its lifetime, then restores
/// what each had.
class FrozenParameters {
 public:
  explicit FrozenParameters(const Module& module) {
    for (auto& [name, p] : module.named_parameters()) {
      params_.push_back(p);
      was_.push_back(p.requires_grad());
      params_.back().set_requires_grad(false);
    }
  }
  ~FrozenParameters() {
    for (std::size_t i = 0; i < params_.size(); ++i) params_[i].set_requires_grad(was_[i]);
  }
  FrozenParameters(const FrozenParameters&) = delete;
  FrozenParameters& operator=(const FrozenParameters&) = delete;

 private:
  std::vector<Var> params_;
  std::vector<bool> was_;
};

}  // namespace attend
