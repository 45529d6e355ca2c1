#include "attend/core/path_integral.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "attend/core/error.hpp"

namespace attend {

namespace {

/// Adds sum_k w_k df/dx(a_k x) over the points of `rule` to `integral` [input.numel()], at
/// most `per_batch` points per call of `gradient`; `done` counts the evaluations.
void accumulate_path(const Tensor& input, const QuadratureRule& rule, int64_t per_batch, const PathGradientFn& gradient,
                     const PathProgressFn& progress, std::vector<double>& integral, int64_t& done) {
  const auto points = static_cast<int64_t>(rule.points.size());
  const int64_t size = input.numel();
  for (int64_t first = 0; first < points; first += per_batch) {
    const int64_t copies = std::min<int64_t>(per_batch, points - first);
    Shape shape = input.shape();
    shape[0] *= copies;
    Tensor batch(shape);  // copy k holds a_{first + k} x
    for (int64_t k = 0; k < copies; ++k) {
      const auto a = static_cast<float>(rule.points[static_cast<std::size_t>(first + k)]);
      for (int64_t i = 0; i < size; ++i) batch[k * size + i] = a * input[i];
    }
    const Tensor g = gradient(batch, copies).gradient;
    ATTEND_CHECK(g.numel() == copies * size, "integrated gradients: the gradient has " << g.numel() << " values, expected "
                                                                                       << copies * size);
    for (int64_t k = 0; k < copies; ++k) {
      const double w = rule.weights[static_cast<std::size_t>(first + k)];
      for (int64_t i = 0; i < size; ++i) integral[i] += w * g[k * size + i];
    }
    done += copies;
    if (progress) progress(done);
  }
}

}  // namespace

PathIntegral integrate_from_zero(const Tensor& input, const PathSteps& path, int64_t per_batch, const PathValueFn& value,
                                 const PathGradientFn& gradient, const PathProgressFn& progress) {
  return integrate_from_zero(input, value(input), path, per_batch, value, gradient, progress);
}

PathIntegral integrate_from_zero(const Tensor& input, double input_value, const PathSteps& path, int64_t per_batch,
                                 const PathValueFn& value, const PathGradientFn& gradient,
                                 const PathProgressFn& progress) {
  ATTEND_CHECK(path.steps >= 1 && path.max_gap >= 0.0,
               "integrated gradients with " << path.steps << " steps and a gap bound of " << path.max_gap);
  ATTEND_CHECK(per_batch >= 1, "integrated gradients with " << per_batch << " steps per batch");
  ATTEND_CHECK(input.rank() >= 1, "integrated gradients need an input of rank >= 1");
  const int64_t size = input.numel();
  PathIntegral out;
  out.value = input_value;
  out.baseline_value = value(Tensor(input.shape()));
  const double change = out.value - out.baseline_value;
  std::vector<double> integral(static_cast<std::size_t>(size), 0.0);  // the rule's sum of w_k df/dx(a_k x)
  out.attribution = Tensor(input.shape());
  const auto attribute = [&] {
    double total = 0.0;
    for (int64_t i = 0; i < size; ++i) {
      const double a = static_cast<double>(input[i]) * integral[i];
      out.attribution[i] = static_cast<float>(a);
      total += a;
    }
    out.completeness_gap = total - change;
  };
  int64_t done = 0;
  out.steps = path.steps;
  accumulate_path(input, quadrature_rule(path.rule, path.steps), per_batch, gradient, progress, integral, done);
  attribute();
  while (path.max_gap > 0.0 && std::abs(out.completeness_gap) > path.max_gap * std::abs(change)) {
    const QuadratureRefinement finer = refine_quadrature(path.rule, out.steps);
    if (finer.points > path.max_steps) break;
    for (double& v : integral) v *= finer.kept_scale;
    accumulate_path(input, finer.added, per_batch, gradient, progress, integral, done);
    out.steps = finer.points;
    attribute();
  }
  return out;
}

}  // namespace attend
