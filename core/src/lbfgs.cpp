#include "attend/core/lbfgs.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>

#include "attend/core/error.hpp"
#include "attend/core/parallel.hpp"

namespace attend {

const OptionList<LbfgsOptions>& LbfgsOptions::option_list() {
  using O = LbfgsOptions;
  static const OptionList<O> list =
      OptionList<O>("lbfgs")
          .add("lbfgs_history", &O::history, "correction pairs kept", OptionRange::at_least(1))
          .add("max_iterations", &O::max_iterations, "iterations at most", OptionRange::at_least(1))
          .add("epsilon", &O::epsilon, "stop when the objective fell by less than this fraction over `past` iterations",
               OptionRange::at_least(0))
          .add("past", &O::past, "window of the relative-decrease test", OptionRange::at_least(1));
  return list;
}

namespace {

// Vector operations over fixed blocks (edges depend on the length only): partial dot products
// are summed in block order, so they do not depend on the thread count.
constexpr int64_t kBlock = int64_t{1} << 16;

double dot(const std::vector<float>& a, const std::vector<float>& b) {
  const int64_t n = static_cast<int64_t>(a.size());
  std::vector<double> partial(static_cast<std::size_t>((n + kBlock - 1) / kBlock), 0.0);
  parallel_for_blocks(n, kBlock, [&](int64_t lo, int64_t hi) {
    double s = 0.0;
    const float* pa = a.data();
    const float* pb = b.data();
#pragma omp simd reduction(+ : s)
    for (int64_t i = lo; i < hi; ++i) s += static_cast<double>(pa[i]) * static_cast<double>(pb[i]);
    partial[static_cast<std::size_t>(lo / kBlock)] = s;
  });
  double s = 0.0;
  for (double p : partial) s += p;
  return s;
}

// out = a + alpha * b (out may alias a).
void axpy_into(std::vector<float>& out, const std::vector<float>& a, double alpha,
               const std::vector<float>& b) {
  const int64_t n = static_cast<int64_t>(a.size());
  const float fa = static_cast<float>(alpha);
  parallel_for_blocks(n, kBlock, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) out[i] = a[i] + fa * b[i];
  });
}

// out = a - b.
void difference(std::vector<float>& out, const std::vector<float>& a, const std::vector<float>& b) {
  const int64_t n = static_cast<int64_t>(a.size());
  parallel_for_blocks(n, kBlock, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) out[i] = a[i] - b[i];
  });
}

void scale(std::vector<float>& v, double alpha) {
  const int64_t n = static_cast<int64_t>(v.size());
  const float fa = static_cast<float>(alpha);
  parallel_for_blocks(n, kBlock, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) v[i] *= fa;
  });
}

// One point on the search line: step, objective, directional derivative.
struct LinePoint {
  double alpha = 0.0;
  double f = 0.0;
  double dg = 0.0;
};

// Minimiser of the cubic interpolating f and f' at a and b (Nocedal & Wright eq. 3.59),
// kept inside the middle 80 % of the interval; bisection when the cubic is of no use.
double interpolate(const LinePoint& a, const LinePoint& b) {
  const double lo = std::min(a.alpha, b.alpha);
  const double hi = std::max(a.alpha, b.alpha);
  const double mid = 0.5 * (lo + hi);
  if (!std::isfinite(a.f) || !std::isfinite(b.f) || !std::isfinite(a.dg) || !std::isfinite(b.dg)) {
    return mid;
  }
  const double d1 = a.dg + b.dg - 3.0 * (a.f - b.f) / (a.alpha - b.alpha);
  const double disc = d1 * d1 - a.dg * b.dg;
  if (!(disc >= 0.0)) return mid;
  const double d2 = std::copysign(std::sqrt(disc), b.alpha - a.alpha);
  const double denom = b.dg - a.dg + 2.0 * d2;
  if (denom == 0.0) return mid;
  const double t = b.alpha - (b.alpha - a.alpha) * (b.dg + d2 - d1) / denom;
  const double margin = 0.1 * (hi - lo);
  if (!std::isfinite(t) || t < lo + margin || t > hi - margin) return mid;
  return t;
}

// The working state of one minimisation.
class Minimizer {
 public:
  Minimizer(std::vector<float>& x, const LbfgsObjective& f, const LbfgsOptions& options)
      : f_(f), options_(options), x_(std::move(x)) {
    const std::size_t n = x_.size();
    g_.assign(n, 0.0f);
    d_.assign(n, 0.0f);
    xt_.assign(n, 0.0f);
    gt_.assign(n, 0.0f);
    s_new_.assign(n, 0.0f);
    y_new_.assign(n, 0.0f);
  }

  LbfgsResult run(const LbfgsCallback& progress, std::vector<float>& out);

 private:
  LinePoint evaluate_at(double alpha);
  bool line_search(double alpha0, LinePoint& accepted);
  bool zoom(LinePoint lo, LinePoint hi, const LinePoint& start, int& budget, LinePoint& accepted);
  void direction();

  const LbfgsObjective& f_;
  const LbfgsOptions& options_;
  std::vector<float> x_, g_, d_, xt_, gt_, s_new_, y_new_;
  std::deque<std::vector<float>> s_, y_;  // newest last
  std::deque<double> rho_;
  double fx_ = 0.0;
  int evaluations_ = 0;
};

LinePoint Minimizer::evaluate_at(double alpha) {
  axpy_into(xt_, x_, alpha, d_);
  LinePoint p;
  p.alpha = alpha;
  p.f = f_(xt_.data(), gt_.data());
  ++evaluations_;
  p.dg = dot(gt_, d_);
  return p;
}

// Nocedal & Wright Alg. 3.6: shrink [lo, hi] (lo satisfies sufficient decrease and has the
// lowest f seen) until a point meets the strong Wolfe conditions.
bool Minimizer::zoom(LinePoint lo, LinePoint hi, const LinePoint& start, int& budget,
                     LinePoint& accepted) {
  while (budget > 0) {
    --budget;
    const LinePoint p = evaluate_at(interpolate(lo, hi));
    if (!std::isfinite(p.f) || p.f > start.f + options_.c1 * p.alpha * start.dg || p.f >= lo.f) {
      hi = p;
      continue;
    }
    if (std::abs(p.dg) <= -options_.c2 * start.dg) {
      accepted = p;
      return true;
    }
    if (p.dg * (hi.alpha - lo.alpha) >= 0.0) hi = lo;
    lo = p;
  }
  // Out of evaluations: the best point with sufficient decrease is still progress.
  if (lo.alpha > 0.0) {
    accepted = evaluate_at(lo.alpha);
    return true;
  }
  return false;
}

// Nocedal & Wright Alg. 3.5: extrapolate (doubling the step) until the minimum is bracketed,
// then zoom. On success xt_/gt_ hold the accepted point.
bool Minimizer::line_search(double alpha0, LinePoint& accepted) {
  const LinePoint start{0.0, fx_, dot(g_, d_)};
  int budget = options_.max_linesearch;
  LinePoint prev = start;
  double alpha = alpha0;
  for (int trial = 0; budget > 0; ++trial) {
    --budget;
    const LinePoint p = evaluate_at(alpha);
    if (!std::isfinite(p.f) || p.f > start.f + options_.c1 * alpha * start.dg ||
        (trial > 0 && p.f >= prev.f)) {
      return zoom(prev, p, start, budget, accepted);
    }
    if (std::abs(p.dg) <= -options_.c2 * start.dg) {
      accepted = p;
      return true;
    }
    if (p.dg >= 0.0) return zoom(p, prev, start, budget, accepted);
    prev = p;
    alpha *= 2.0;
  }
  if (prev.alpha > 0.0) {
    accepted = evaluate_at(prev.alpha);
    return true;
  }
  return false;
}

// Nocedal & Wright Alg. 7.4: d = -H g with H0 = (s'y / y'y) I from the newest pair.
void Minimizer::direction() {
  const std::size_t m = s_.size();
  for (std::size_t i = 0; i < d_.size(); ++i) d_[i] = -g_[i];
  if (m == 0) return;
  std::vector<double> alpha(m);
  for (std::size_t k = m; k-- > 0;) {
    alpha[k] = rho_[k] * dot(s_[k], d_);
    axpy_into(d_, d_, -alpha[k], y_[k]);
  }
  scale(d_, 1.0 / (rho_[m - 1] * dot(y_[m - 1], y_[m - 1])));
  for (std::size_t k = 0; k < m; ++k) {
    const double beta = rho_[k] * dot(y_[k], d_);
    axpy_into(d_, d_, alpha[k] - beta, s_[k]);
  }
}

LbfgsResult Minimizer::run(const LbfgsCallback& progress, std::vector<float>& out) {
  LbfgsResult result;
  fx_ = f_(x_.data(), g_.data());
  evaluations_ = 1;
  ATTEND_CHECK(std::isfinite(fx_), "L-BFGS: the objective is not finite at the starting point");
  double gnorm = std::sqrt(dot(g_, g_));
  std::vector<double> past_f;  // objective after each iteration, index 0 = start
  past_f.push_back(fx_);

  auto finish = [&](LbfgsStatus status, int iterations) {
    result.status = status;
    result.iterations = iterations;
    result.evaluations = evaluations_;
    result.objective = fx_;
    result.gradient_norm = gnorm;
    out = std::move(x_);
    return result;
  };

  const auto gradient_small = [&] {
    const double xnorm = std::sqrt(dot(x_, x_));
    return options_.gradient_tolerance > 0.0 &&
           gnorm <= options_.gradient_tolerance * std::max(1.0, xnorm);
  };
  if (gnorm == 0.0 || gradient_small()) return finish(LbfgsStatus::kConverged, 0);

  for (int iteration = 1;; ++iteration) {
    if (iteration > options_.max_iterations) {
      return finish(LbfgsStatus::kMaxIterations, iteration - 1);
    }
    direction();
    if (!(dot(g_, d_) < 0.0)) {  // not a descent direction: forget the curvature pairs
      s_.clear();
      y_.clear();
      rho_.clear();
      direction();
    }
    const double alpha0 = s_.empty() ? 1.0 / std::sqrt(dot(d_, d_)) : 1.0;
    LinePoint accepted;
    if (!line_search(alpha0, accepted)) {
      return finish(LbfgsStatus::kLineSearchFailed, iteration - 1);
    }

    // xt_/gt_ hold the new point: the pair is s = x_new - x, y = g_new - g.
    difference(s_new_, xt_, x_);
    difference(y_new_, gt_, g_);
    std::swap(x_, xt_);
    std::swap(g_, gt_);
    fx_ = accepted.f;
    gnorm = std::sqrt(dot(g_, g_));
    const double sy = dot(s_new_, y_new_);
    if (sy > 1e-10 * dot(y_new_, y_new_)) {  // keep the pair only with positive curvature
      std::vector<float> s = std::move(s_new_), y = std::move(y_new_);
      if (static_cast<int>(s_.size()) == options_.history) {  // reuse the oldest pair's memory
        s_new_ = std::move(s_.front());
        y_new_ = std::move(y_.front());
        s_.pop_front();
        y_.pop_front();
        rho_.pop_front();
      } else {
        s_new_.assign(x_.size(), 0.0f);
        y_new_.assign(x_.size(), 0.0f);
      }
      s_.push_back(std::move(s));
      y_.push_back(std::move(y));
      rho_.push_back(1.0 / sy);
    }
    past_f.push_back(fx_);

    if (progress) {
      LbfgsProgress p;
      p.iteration = iteration;
      p.evaluations = evaluations_;
      p.objective = fx_;
      p.gradient_norm = gnorm;
      p.x_norm = std::sqrt(dot(x_, x_));
      p.step = accepted.alpha;
      p.x = x_.data();
      if (!progress(p)) return finish(LbfgsStatus::kStopped, iteration);
    }
    if (gradient_small()) return finish(LbfgsStatus::kConverged, iteration);
    if (options_.epsilon > 0.0 && options_.past > 0 && iteration >= options_.past) {
      const double before = past_f[static_cast<std::size_t>(iteration - options_.past)];
      if ((before - fx_) / std::max(std::abs(before), std::numeric_limits<double>::min()) <
          options_.epsilon) {
        return finish(LbfgsStatus::kConverged, iteration);
      }
    }
  }
}

}  // namespace

std::string to_string(LbfgsStatus status) {
  switch (status) {
    case LbfgsStatus::kConverged: return "converged";
    case LbfgsStatus::kMaxIterations: return "max_iterations";
    case LbfgsStatus::kLineSearchFailed: return "linesearch_failed";
    case LbfgsStatus::kStopped: return "stopped";
  }
  return "unknown";
}

// Nocedal & Wright Alg. 7.5 (L-BFGS) with the strong-Wolfe line search of Alg. 3.5/3.6.
LbfgsResult lbfgs_minimize(std::vector<float>& x, const LbfgsObjective& f,
                           const LbfgsOptions& options, const LbfgsCallback& progress) {
  ATTEND_CHECK(!x.empty(), "L-BFGS needs at least one parameter");
  ATTEND_CHECK(options.history >= 1, "L-BFGS history must be >= 1, got " << options.history);
  ATTEND_CHECK(options.max_linesearch >= 1, "L-BFGS max_linesearch must be >= 1");
  ATTEND_CHECK(0.0 < options.c1 && options.c1 < options.c2 && options.c2 < 1.0,
               "L-BFGS needs 0 < c1 < c2 < 1, got " << options.c1 << ", " << options.c2);
  Minimizer minimizer(x, f, options);
  return minimizer.run(progress, x);
}

}  // namespace attend
