#include "attend/bio/contact_attribution.hpp"

#include "attend/bio/contact_metrics.hpp"
#include "attend/bio/contact_model.hpp"
#include "attend/core/autodiff.hpp"
#include "attend/core/error.hpp"

namespace attend::bio {

ContactAttribution integrated_gradients_contact(const ContactModel& model, const ContactModelInput& input, int64_t i,
                                                int64_t j, const PathSteps& path, const PathProgressFn& progress) {
  const int64_t S = input.msa.dim(0), W = input.msa.dim(1), C = input.msa.dim(2);
  ATTEND_CHECK(!model.is_training(), "integrated gradients of a contact need the model in evaluation mode");
  ATTEND_CHECK(0 <= i && i < j && j < W, "pair (" << i << ", " << j << ") outside 0 <= i < j < " << W);
  // f(msa) = logit (i, j) and df/dmsa, one point per pass.
  const PathGradientFn gradient = [&](const Tensor& points, int64_t copies) {
    ATTEND_CHECK(copies == 1, "the contact model takes one point per pass");
    Var msa(points, true);                                  // [S, W, C]
    Var logits = model.forward_from_msa(msa, input);        // [W, W]
    Tensor seed({W, W}, 0.0f);                              // [W, W]: d logit(i, j)
    seed[i * W + j] = 1.0f;
    logits.backward(seed);
    return PathGradient{logits.value()[i * W + j], msa.grad()};
  };
  const PathValueFn value = [&](const Tensor& point) {  // f(msa) alone, nothing recorded
    NoGradGuard no_grad;
    return static_cast<double>(model.forward_from_msa(Var(point), input).value()[i * W + j]);
  };
  const PathIntegral integral = integrate_from_zero(input.msa, path, 1, value, gradient, progress);
  ContactAttribution out;
  out.i = i;
  out.j = j;
  out.steps = integral.steps;
  out.rule = path.rule;
  out.attribution = integral.attribution;  // [S, W, C]
  out.value = integral.value;
  out.baseline_value = integral.baseline_value;
  out.completeness_gap = integral.completeness_gap;
  out.per_sequence.assign(static_cast<std::size_t>(S), 0.0);
  out.per_column.assign(static_cast<std::size_t>(W), 0.0);
  for (int64_t s = 0; s < S; ++s)
    for (int64_t w = 0; w < W; ++w) {
      double cell = 0.0;
      for (int64_t c = 0; c < C; ++c) cell += out.attribution[(s * W + w) * C + c];
      out.per_sequence[s] += cell;
      out.per_column[w] += cell;
    }
  return out;
}

std::pair<int64_t, int64_t> top_long_range_pair(const Tensor& scores) {
  ATTEND_CHECK(scores.rank() == 2 && scores.dim(0) == scores.dim(1), "scores must be [L, L]");
  const int64_t L = scores.dim(0);
  for (const int64_t separation : {kLongMin, kShortMin, int64_t{1}}) {
    std::pair<int64_t, int64_t> best{-1, -1};
    for (int64_t i = 0; i < L; ++i)
      for (int64_t j = i + separation; j < L; ++j) {
        if (best.first < 0 || scores[i * L + j] > scores[best.first * L + best.second]) best = {i, j};
      }
    if (best.first >= 0) return best;
  }
  throw Error("top_long_range_pair needs L >= 2, got " + std::to_string(L));
}

}  // namespace attend::bio
