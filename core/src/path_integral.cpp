#include "attend/core/path_integral.hpp"

#include <algorithm>
#include <vector>

#include "attend/core/error.hpp"

namespace attend {

PathIntegral integrate_from_zero(const Tensor& input, const QuadratureRule& rule, int64_t per_batch,
                                 const PathGradientFn& gradient, const PathProgressFn& progress) {
  const auto steps = static_cast<int64_t>(rule.points.size());
  ATTEND_CHECK(steps >= 1 && rule.weights.size() == rule.points.size(),
               "integrated gradients with " << steps << " steps");
  ATTEND_CHECK(per_batch >= 1, "integrated gradients with " << per_batch << " steps per batch");
  ATTEND_CHECK(input.rank() >= 1, "integrated gradients need an input of rank >= 1");
  const int64_t size = input.numel();
  std::vector<double> integral(static_cast<std::size_t>(size), 0.0);  // sum over steps of w_k df/dx(a_k x)
  for (int64_t first = 0; first < steps; first += per_batch) {
    const int64_t copies = std::min<int64_t>(per_batch, steps - first);
    Shape shape = input.shape();
    shape[0] *= copies;
    Tensor points(shape);  // copy k holds a_{first + k} x
    for (int64_t k = 0; k < copies; ++k) {
      const auto a = static_cast<float>(rule.points[static_cast<std::size_t>(first + k)]);
      for (int64_t i = 0; i < size; ++i) points[k * size + i] = a * input[i];
    }
    const Tensor g = gradient(points, copies).gradient;
    ATTEND_CHECK(g.numel() == copies * size, "integrated gradients: the gradient has " << g.numel() << " values, expected "
                                                                                       << copies * size);
    for (int64_t k = 0; k < copies; ++k) {
      const double w = rule.weights[static_cast<std::size_t>(first + k)];
      for (int64_t i = 0; i < size; ++i) integral[i] += w * g[k * size + i];
    }
    if (progress) progress(first + copies);
  }
  PathIntegral out;
  out.attribution = Tensor(input.shape());
  double total = 0.0;
  for (int64_t i = 0; i < size; ++i) {
    const double a = static_cast<double>(input[i]) * integral[i];
    out.attribution[i] = static_cast<float>(a);
    total += a;
  }
  out.value = gradient(input, 1).value;
  out.baseline_value = gradient(Tensor(input.shape()), 1).value;
  out.completeness_gap = total - (out.value - out.baseline_value);
  return out;
}

}  // namespace attend
