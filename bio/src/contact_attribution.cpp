#include "attend/bio/contact_attribution.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "attend/bio/contact_metrics.hpp"
#include "attend/bio/contact_model.hpp"
#include "attend/core/autodiff.hpp"
#include "attend/core/error.hpp"

namespace attend::bio {

ContactAttribution integrated_gradients_contact(const ContactModel& model, const ContactModelInput& input, int64_t i,
                                                int64_t j, const PathSteps& path, const PathProgressFn& progress) {
  const int64_t S = input.msa.dim(0), W = input.msa.dim(1), C = input.msa.dim(2), F = input.pair.dim(2);
  ATTEND_CHECK(!model.is_training(), "integrated gradients of a contact need the model in evaluation mode");
  ATTEND_CHECK(0 <= i && i < j && j < W, "pair (" << i << ", " << j << ") outside 0 <= i < j < " << W);
  ATTEND_CHECK(input.pair.shape() == (Shape{W, W, F}), "the pair features must be [" << W << ", " << W << ", F]");
  // Both inputs on one path: x = [msa | pair] flattened, so that a x scales them together.
  const int64_t n_msa = input.msa.numel(), n_pair = input.pair.numel();
  Tensor joint({n_msa + n_pair});  // [S W C + W W F]
  std::copy_n(input.msa.data(), n_msa, joint.data());
  std::copy_n(input.pair.data(), n_pair, joint.data() + n_msa);
  // A point of the path back as the two inputs: [S, W, C] and [W, W, F].
  const auto split = [&](const Tensor& point) {
    Tensor msa_value({S, W, C}), pair_value({W, W, F});
    std::copy_n(point.data(), n_msa, msa_value.data());
    std::copy_n(point.data() + n_msa, n_pair, pair_value.data());
    return std::pair{msa_value, pair_value};
  };
  // f(msa, pair) = logit (i, j) and its gradient, one point per pass.
  const PathGradientFn gradient = [&](const Tensor& point, int64_t copies) {
    ATTEND_CHECK(copies == 1, "the contact model takes one point per pass");
    auto [msa_value, pair_value] = split(point);
    Var msa(msa_value, true);                                          // [S, W, C]
    Var pair(pair_value, true);                                        // [W, W, F]
    Var logits = model.forward_from_features(msa, pair, input);        // [W, W]
    Tensor seed({W, W}, 0.0f);                                         // [W, W]: d logit(i, j)
    seed[i * W + j] = 1.0f;
    logits.backward(seed);
    Tensor grad({n_msa + n_pair});  // [S W C + W W F]
    std::copy_n(msa.grad().data(), n_msa, grad.data());
    std::copy_n(pair.grad().data(), n_pair, grad.data() + n_msa);
    return PathGradient{logits.value()[i * W + j], grad};
  };
  const PathValueFn value = [&](const Tensor& point) {  // f(msa, pair) alone, nothing recorded
    NoGradGuard no_grad;
    const auto [msa_value, pair_value] = split(point);
    return static_cast<double>(model.forward_from_features(Var(msa_value), Var(pair_value), input).value()[i * W + j]);
  };
  const PathIntegral integral = integrate_from_zero(joint, path, 1, value, gradient, progress);
  ContactAttribution out;
  out.i = i;
  out.j = j;
  out.steps = integral.steps;
  out.rule = path.rule;
  out.msa_attribution = Tensor({S, W, C});   // [S, W, C]
  out.pair_attribution = Tensor({W, W, F});  // [W, W, F]
  std::copy_n(integral.attribution.data(), n_msa, out.msa_attribution.data());
  std::copy_n(integral.attribution.data() + n_msa, n_pair, out.pair_attribution.data());
  out.value = integral.value;
  out.baseline_value = integral.baseline_value;
  out.completeness_gap = integral.completeness_gap;
  out.per_sequence.assign(static_cast<std::size_t>(S), 0.0);
  out.per_column.assign(static_cast<std::size_t>(W), 0.0);
  for (int64_t s = 0; s < S; ++s)
    for (int64_t w = 0; w < W; ++w) {
      double cell = 0.0;
      for (int64_t c = 0; c < C; ++c) cell += out.msa_attribution[(s * W + w) * C + c];
      out.per_sequence[s] += cell;
      out.per_column[w] += cell;
      out.msa_total += cell;
    }
  out.pair_map = Tensor({W, W});  // [W, W]
  for (int64_t e = 0; e < W * W; ++e) {
    double cell = 0.0;
    for (int64_t f = 0; f < F; ++f) cell += out.pair_attribution[e * F + f];
    out.pair_map[e] = static_cast<float>(cell);
    out.pair_total += cell;
  }
  return out;
}

std::vector<ResiduePairAttribution> residue_pair_attributions(const ContactAttribution& a) {
  const int64_t W = a.pair_map.dim(0);
  std::vector<ResiduePairAttribution> pairs;
  pairs.reserve(static_cast<std::size_t>(W * (W + 1) / 2));
  for (int64_t i = 0; i < W; ++i)
    for (int64_t j = i; j < W; ++j) {
      const double score = i == j ? static_cast<double>(a.pair_map[i * W + i])
                                  : static_cast<double>(a.pair_map[i * W + j]) + static_cast<double>(a.pair_map[j * W + i]);
      pairs.push_back({i, j, score});
    }
  return pairs;
}

std::vector<ResiduePairAttribution> by_magnitude(std::vector<ResiduePairAttribution> pairs) {
  std::stable_sort(pairs.begin(), pairs.end(), [](const ResiduePairAttribution& p, const ResiduePairAttribution& q) {
    return std::abs(p.score) > std::abs(q.score);
  });
  return pairs;
}

int64_t explained_pair_rank(const ContactAttribution& a) {
  const std::vector<ResiduePairAttribution> ranked = by_magnitude(residue_pair_attributions(a));
  const auto at = std::find_if(ranked.begin(), ranked.end(), [&](const ResiduePairAttribution& p) { return p.i == a.i && p.j == a.j; });
  ATTEND_CHECK(at != ranked.end(), "the explained pair (" << a.i << ", " << a.j << ") is outside the pair map");
  return static_cast<int64_t>(at - ranked.begin()) + 1;
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
