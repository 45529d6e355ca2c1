#pragma once
/// Finite-difference gradient check for ops and layers (tests only).
///
/// The checked scalar is L = sum(f(inputs) * R) with R a fixed random tensor, so every output
/// element is weighted differently: a wrong sign, a missing term or a gradient sent to the
/// wrong element changes dL/dx and is caught (a plain sum would hide errors that cancel, for
/// example in softmax). Derivatives are central differences on float32 inputs; L is summed in
/// double to keep rounding noise below the tolerance.

#include <functional>
#include <string>
#include <vector>

#include "attend/core/autodiff.hpp"
#include "attend/core/module.hpp"

namespace attend::testing {

struct GradCheckOptions {
  float eps = 1e-2f;           ///< finite-difference step
  float rtol = 2e-2f;          ///< relative tolerance on each derivative
  float atol = 2e-3f;          ///< absolute tolerance on each derivative
  int max_checks = 48;         ///< elements checked per input (sampled when larger)
  uint64_t seed = 1234;        ///< for R and the sampled elements
  std::vector<bool> differentiable;  ///< per input; empty = all
};

struct GradCheckResult {
  bool ok = true;
  float worst = 0.0f;   ///< largest |numeric - analytic| / (atol + rtol * scale)
  std::string report;   ///< the first failures, readable
};

using VarFunction = std::function<Var(const std::vector<Var>&)>;

/// Compare f's backward with central differences at `inputs`.
GradCheckResult check_gradients(const VarFunction& f, const std::vector<Tensor>& inputs,
                                const GradCheckOptions& options = {});

/// The same check for the parameters of `module` that require a gradient (state values such
/// as running statistics are skipped): d/dtheta of sum(forward() * R), with each sampled
/// parameter value perturbed in place (and restored). `forward` must be
/// deterministic (fixed dropout seeds).
GradCheckResult check_module_gradients(const Module& module, const std::function<Var()>& forward,
                                       const GradCheckOptions& options = {});

/// f's output at fresh leaves made from `inputs`, and the gradient of sum(f(inputs) * R) for
/// each input (R = random_tensor(output shape, 99)): what a fused op and its plain composition
/// must agree on, and what 1 and N threads must give bit for bit.
struct OutputAndGradients {
  Tensor out;
  std::vector<Tensor> grads;
};
OutputAndGradients output_and_gradients(const VarFunction& f, const std::vector<Tensor>& inputs);

/// A tensor of `shape` with values uniform in [lo, hi) from `seed`.
Tensor random_tensor(const Shape& shape, uint64_t seed, float lo = -1.0f, float hi = 1.0f);

}  // namespace attend::testing
