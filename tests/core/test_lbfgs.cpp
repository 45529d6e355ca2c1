#include <catch2/catch.hpp>

#include <cmath>

#include "attend/core/lbfgs.hpp"
#include "attend/core/parallel.hpp"

using namespace attend;

namespace {

// Extended Rosenbrock: sum over pairs of 100 (x_{2k+1} - x_{2k}^2)^2 + (1 - x_{2k})^2;
// minimum 0 at x = 1. Evaluated in double.
double rosenbrock(const float* x, float* g, int n) {
  double f = 0.0;
  for (int k = 0; k < n; k += 2) {
    const double a = x[k], b = x[k + 1];
    const double t = b - a * a, u = 1.0 - a;
    f += 100.0 * t * t + u * u;
    g[k] = static_cast<float>(-400.0 * t * a - 2.0 * u);
    g[k + 1] = static_cast<float>(200.0 * t);
  }
  return f;
}

}  // namespace

TEST_CASE("L-BFGS minimises the Rosenbrock function", "[core]") {
  for (int n : {2, 10}) {
    std::vector<float> x(static_cast<std::size_t>(n));
    for (int k = 0; k < n; k += 2) {
      x[k] = -1.2f;
      x[k + 1] = 1.0f;
    }
    LbfgsOptions options;
    options.max_iterations = 500;
    options.epsilon = 0.0;  // run to the gradient test
    options.gradient_tolerance = 1e-5;
    int calls = 0;
    const LbfgsResult r = lbfgs_minimize(
        x, [n](const float* v, float* g) { return rosenbrock(v, g, n); }, options,
        [&](const LbfgsProgress& p) {
          ++calls;
          CHECK(p.iteration == calls);
          return true;
        });
    INFO("n = " << n << ", status " << to_string(r.status) << ", iterations " << r.iterations);
    CHECK(r.status != LbfgsStatus::kMaxIterations);
    CHECK(r.iterations == calls);
    CHECK(r.objective < 1e-6);
    for (float v : x) CHECK(v == Approx(1.0f).margin(2e-3));
  }
}

TEST_CASE("L-BFGS solves an ill-conditioned quadratic", "[core]") {
  // f = 0.5 sum_k c_k (x_k - k)^2 with c from 1 to 1000.
  const int n = 50;
  std::vector<float> x(n, 0.0f);
  auto f = [&](const float* v, float* g) {
    double s = 0.0;
    for (int k = 0; k < n; ++k) {
      const double c = std::pow(1000.0, k / double(n - 1)), d = v[k] - k;
      s += 0.5 * c * d * d;
      g[k] = static_cast<float>(c * d);
    }
    return s;
  };
  LbfgsOptions options;
  options.history = 10;
  options.max_iterations = 1000;
  options.epsilon = 0.0;
  options.gradient_tolerance = 1e-6;
  const LbfgsResult r = lbfgs_minimize(x, f, options);
  CHECK(r.status != LbfgsStatus::kMaxIterations);
  for (int k = 0; k < n; ++k) CHECK(x[k] == Approx(float(k)).margin(1e-3));
  // Far fewer iterations than gradient descent would need at condition number 1000.
  CHECK(r.iterations < 200);
}

TEST_CASE("L-BFGS stops on the relative-decrease rule and on request", "[core]") {
  std::vector<float> x{-1.2f, 1.0f};
  LbfgsOptions options;
  options.epsilon = 0.5;  // very loose: stops after `past` iterations
  options.past = 3;
  options.gradient_tolerance = 0.0;
  LbfgsResult r = lbfgs_minimize(x, [](const float* v, float* g) { return rosenbrock(v, g, 2); }, options);
  CHECK(r.status == LbfgsStatus::kConverged);
  CHECK(r.iterations >= 3);

  x = {-1.2f, 1.0f};
  r = lbfgs_minimize(
      x, [](const float* v, float* g) { return rosenbrock(v, g, 2); }, LbfgsOptions{},
      [](const LbfgsProgress& p) { return p.iteration < 2; });
  CHECK(r.status == LbfgsStatus::kStopped);
  CHECK(r.iterations == 2);
}

TEST_CASE("L-BFGS is bit-identical for 1 and 2 threads", "[core]") {
  // Long enough for several blocks in the vector operations.
  const int n = 200000;
  auto run = [&](int threads) {
    set_num_threads(threads);
    std::vector<float> x(n, 0.0f);
    LbfgsOptions options;
    options.max_iterations = 15;
    options.epsilon = 0.0;
    options.gradient_tolerance = 0.0;
    lbfgs_minimize(x, [&](const float* v, float* g) { return rosenbrock(v, g, n); }, options);
    return x;
  };
  const int saved = num_threads();
  const std::vector<float> one = run(1);
  const std::vector<float> two = run(2);
  set_num_threads(saved);
  CHECK(one == two);
}
