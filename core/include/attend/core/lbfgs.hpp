#pragma once
/// L-BFGS: limited-memory quasi-Newton minimisation of a smooth function of a flat float32
/// parameter vector (Nocedal & Wright, "Numerical Optimization", 2nd ed., Alg. 7.4 two-loop
/// recursion and Alg. 7.5 driver), with a strong-Wolfe line search (Alg. 3.5 bracketing and
/// Alg. 3.6 zoom, safeguarded cubic interpolation).
///
/// Parameters, gradients and the stored (s, y) pairs are float32; dot products and norms are
/// accumulated in double over fixed blocks of the vector (edges depend on its length only)
/// that are summed in block order, so a run is bit-identical for any thread count as long as
/// the objective is.
///
/// Stopping rules: the relative decrease of the objective over the last `past` iterations,
/// (f[k - past] - f[k]) / |f[k - past]|, falls below `epsilon` (CCMpred's rule: epsilon 0.01
/// over 5 iterations); or ||g|| <= gradient_tolerance * max(1, ||x||); or `max_iterations`;
/// or the line search cannot find a lower point (at the limit of float precision); or the
/// progress callback asks to stop.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "attend/core/option_list.hpp"

namespace attend {

/// The function to minimise: returns f(x) and writes its gradient (same length as x) to `grad`.
using LbfgsObjective = std::function<double(const float* x, float* grad)>;

/// Options of `lbfgs_minimize`.
struct LbfgsOptions {
  /// Number of (s, y) correction pairs kept (m).
  int history = 5;
  /// Iterations (accepted steps) at most.
  int max_iterations = 100;
  /// Relative-decrease threshold over the last `past` iterations (0 disables the test).
  double epsilon = 1e-2;
  /// Window of the relative-decrease test.
  int past = 5;
  /// ||g|| <= gradient_tolerance * max(1, ||x||) stops (0 disables the test).
  double gradient_tolerance = 1e-6;
  /// Objective evaluations per line search at most.
  int max_linesearch = 20;
  /// Sufficient-decrease (Armijo) constant c1 and curvature constant c2 of the Wolfe conditions.
  double c1 = 1e-4;
  double c2 = 0.9;

  /// The options a fit exposes (history, iterations and the relative-decrease rule), with the
  /// keys of the fit's recorded parameters; the line-search constants are not options.
  static const OptionList<LbfgsOptions>& option_list();
};

/// Why the minimisation stopped.
enum class LbfgsStatus {
  kConverged,          ///< relative-decrease or gradient test met
  kMaxIterations,      ///< max_iterations reached
  kLineSearchFailed,   ///< no lower point along the search direction (precision limit)
  kStopped,            ///< the progress callback returned false
};

/// "converged", "max_iterations", "linesearch_failed", "stopped".
std::string to_string(LbfgsStatus status);

/// State after one accepted iteration, handed to the progress callback.
struct LbfgsProgress {
  int iteration = 0;        ///< 1-based
  int evaluations = 0;      ///< objective evaluations so far (initial one included)
  double objective = 0.0;
  double gradient_norm = 0.0;
  double x_norm = 0.0;
  double step = 0.0;        ///< accepted step length along the search direction
  /// The current point (valid during the callback only).
  const float* x = nullptr;
};

/// Called after every accepted iteration; return false to stop.
using LbfgsCallback = std::function<bool(const LbfgsProgress&)>;

/// Outcome of `lbfgs_minimize`.
struct LbfgsResult {
  LbfgsStatus status = LbfgsStatus::kMaxIterations;
  int iterations = 0;
  int evaluations = 0;
  double objective = 0.0;     ///< f at the returned x
  double gradient_norm = 0.0;
};

/// Minimise `f` from the starting point `x` (overwritten with the best point found).
/// Memory: (2 * history + 7) vectors of x's length. If `f` throws, the exception propagates
/// and `x` is left unspecified.
LbfgsResult lbfgs_minimize(std::vector<float>& x, const LbfgsObjective& f,
                           const LbfgsOptions& options = {}, const LbfgsCallback& progress = {});

}  // namespace attend
