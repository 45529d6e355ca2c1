#include "grad_check.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "attend/core/ops/elementwise.hpp"
#include "attend/core/ops/reduction.hpp"
#include "attend/core/random.hpp"

namespace attend::testing {

Tensor random_tensor(const Shape& shape, uint64_t seed, float lo, float hi) {
  Tensor t(shape);
  Rng rng(seed);
  for (float& x : t) x = rng.uniform(lo, hi);
  return t;
}

namespace {
double weighted_sum(const Tensor& out, const Tensor& weights) {
  double s = 0.0;
  for (int64_t i = 0; i < out.numel(); ++i) s += static_cast<double>(out[i]) * weights[i];
  return s;
}

std::vector<Var> make_vars(const std::vector<Tensor>& inputs, const std::vector<bool>& diff) {
  std::vector<Var> vars;
  for (std::size_t i = 0; i < inputs.size(); ++i) vars.emplace_back(inputs[i], diff[i]);
  return vars;
}
}  // namespace

GradCheckResult check_gradients(const VarFunction& f, const std::vector<Tensor>& inputs,
                                const GradCheckOptions& options) {
  std::vector<bool> diff = options.differentiable;
  if (diff.empty()) diff.assign(inputs.size(), true);

  // Analytic gradients.
  std::vector<Var> vars = make_vars(inputs, diff);
  Var out = f(vars);
  const Tensor weights = random_tensor(out.shape(), options.seed ^ 0x5eedULL, -1.0f, 1.0f);
  GradCheckResult result;
  if (!out.requires_grad()) {
    result.ok = false;
    result.report = "output does not require a gradient";
    return result;
  }
  out.backward(weights);

  Rng pick(options.seed);
  std::ostringstream report;
  int failures = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!diff[i]) continue;
    const Tensor analytic = vars[i].grad();
    const int64_t n = inputs[i].numel();
    std::vector<int64_t> elements;
    if (n <= options.max_checks) {
      for (int64_t e = 0; e < n; ++e) elements.push_back(e);
    } else {
      for (int c = 0; c < options.max_checks; ++c) elements.push_back(static_cast<int64_t>(pick.below(n)));
    }
    for (int64_t e : elements) {
      std::vector<Tensor> plus = inputs, minus = inputs;
      plus[i][e] += options.eps;
      minus[i][e] -= options.eps;
      double lp, lm;
      {
        NoGradGuard no_grad;
        lp = weighted_sum(f(make_vars(plus, diff)).value(), weights);
        lm = weighted_sum(f(make_vars(minus, diff)).value(), weights);
      }
      // The actual step is the float-rounded difference of the perturbed inputs.
      const double h = static_cast<double>(plus[i][e]) - minus[i][e];
      const double numeric = (lp - lm) / h;
      const double a = analytic[e];
      const double scale = std::max(std::fabs(numeric), std::fabs(a));
      const double err = std::fabs(numeric - a) / (options.atol + options.rtol * scale);
      result.worst = std::max(result.worst, static_cast<float>(err));
      if (err > 1.0) {
        result.ok = false;
        if (++failures <= 8) {
          report << "input " << i << " element " << e << ": analytic " << a << ", numeric "
                 << numeric << "\n";
        }
      }
    }
  }
  if (failures > 8) report << "... " << failures << " mismatches in all\n";
  result.report = report.str();
  return result;
}

GradCheckResult check_module_gradients(const Module& module, const std::function<Var()>& forward,
                                       const GradCheckOptions& options) {
  const auto params = module.named_parameters();
  for (const auto& [name, p] : params) p.zero_grad();
  Var out = forward();
  const Tensor weights = random_tensor(out.shape(), options.seed ^ 0x5eedULL, -1.0f, 1.0f);
  GradCheckResult result;
  out.backward(weights);

  Rng pick(options.seed);
  std::ostringstream report;
  int failures = 0;
  for (const auto& [name, p] : params) {
    if (!p.requires_grad()) continue;  // state a layer updates itself (running statistics)
    const Tensor analytic = p.grad();
    Var handle = p;  // a handle to the same parameter, to write its values
    Tensor& value = handle.value();
    const int64_t n = value.numel();
    for (int c = 0; c < std::min<int64_t>(n, options.max_checks); ++c) {
      const int64_t e = n <= options.max_checks ? c : static_cast<int64_t>(pick.below(n));
      const float original = value[e];
      double lp, lm;
      {
        NoGradGuard no_grad;
        value[e] = original + options.eps;
        lp = weighted_sum(forward().value(), weights);
        const float up = value[e];
        value[e] = original - options.eps;
        lm = weighted_sum(forward().value(), weights);
        const double h = static_cast<double>(up) - value[e];
        value[e] = original;
        const double numeric = (lp - lm) / h;
        const double a = analytic[e];
        const double scale = std::max(std::fabs(numeric), std::fabs(a));
        const double err = std::fabs(numeric - a) / (options.atol + options.rtol * scale);
        result.worst = std::max(result.worst, static_cast<float>(err));
        if (err > 1.0) {
          result.ok = false;
          if (++failures <= 8) report << name << "[" << e << "]: analytic " << a << ", numeric " << numeric << "\n";
        }
      }
    }
  }
  if (failures > 8) report << "... " << failures << " mismatches in all\n";
  result.report = report.str();
  return result;
}

OutputAndGradients output_and_gradients(const VarFunction& f, const std::vector<Tensor>& inputs) {
  std::vector<Var> leaves;
  for (const Tensor& t : inputs) leaves.emplace_back(t, true);
  const Var out = f(leaves);
  ops::sum(ops::mul(out, Var(random_tensor(out.shape(), 99), false))).backward();
  OutputAndGradients result{out.value(), {}};
  for (const Var& leaf : leaves) result.grads.push_back(leaf.grad());
  return result;
}

}  // namespace attend::testing
