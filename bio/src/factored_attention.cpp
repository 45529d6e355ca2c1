#include "attend/bio/factored_attention.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

#include "attend/bio/alphabet.hpp"
#include "attend/bio/apc.hpp"
#include "attend/bio/pseudo_likelihood.hpp"
#include "attend/core/error.hpp"
#include "attend/core/ops/dense_attention.hpp"
#include "attend/core/ops/shape.hpp"
#include "attend/core/random.hpp"
#include "fitted_scores.hpp"

namespace attend::bio {

namespace {

constexpr int kS = kNumStates;
constexpr int kF = PottsObjective::kFieldStates;

// The parameters of one fit as leaves of the tape, and their place in the flat L-BFGS vector:
// fields [L, 20], query [1, H, L, d], key [1, H, L, d], value [H, S, S], in that order.
struct FactoredParameters {
  Var fields, query, key, value;

  std::vector<Var> all() const { return {fields, query, key, value}; }

  static FactoredParameters make(int64_t L, int64_t H, int64_t d, int64_t S) {
    return {Var(Tensor({L, kF}), true), Var(Tensor({1, H, L, d}), true), Var(Tensor({1, H, L, d}), true),
            Var(Tensor({H, S, S}), true)};
  }
  int64_t size() const {
    int64_t n = 0;
    for (const Var& v : all()) n += v.value().numel();
    return n;
  }
  void load(const float* x) {
    for (Var v : all()) {
      Tensor& t = v.value();
      std::memcpy(t.data(), x, static_cast<std::size_t>(t.numel()) * sizeof(float));
      x += t.numel();
      v.zero_grad();
    }
  }
  void store_grad(float* g) const {
    for (const Var& v : all()) {
      const Tensor& t = v.grad();
      std::memcpy(g, t.data(), static_cast<std::size_t>(t.numel()) * sizeof(float));
      g += t.numel();
    }
  }
};

}  // namespace

Var factored_attention(const Var& query, const Var& key) {
  ATTEND_CHECK(query.value().rank() == 4 && query.dim(0) == 1 && query.shape() == key.shape(),
               "query and key must both be [1, H, L, d], got " << shape_to_string(query.shape()) << " and "
                                                              << shape_to_string(key.shape()));
  const int64_t H = query.dim(1), L = query.dim(2);
  constexpr float kInf = std::numeric_limits<float>::infinity();
  Tensor diagonal({1, 1, L, L});  // [1, 1, L, L]: -inf on i == j
  Tensor identity({1, H, L, L});  // [1, H, L, L]: values e_j, so the output row i is A[i, :]
  for (int64_t i = 0; i < L; ++i) diagonal[i * L + i] = -kInf;
  for (int64_t h = 0; h < H; ++h)
    for (int64_t i = 0; i < L; ++i) identity[(h * L + i) * L + i] = 1.0f;
  ops::DenseAttentionOptions options;
  options.biases = {Var(std::move(diagonal))};
  const Var attention = ops::dense_attention(query, key, Var(std::move(identity)), options);  // [1, H, L, L]
  return ops::reshape(ops::permute(attention, {0, 2, 3, 1}), {L * L, H});                     // [L * L, H]
}

FactoredResult predict_contacts_factored(const Alignment& alignment, const FactoredOptions& options,
                                      const PottsProgressCallback& progress, const FactoredSnapshotCallback& snapshot) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  if (options.n_heads < 1 || options.c_hidden < 1) {
    throw InputError("factored attention needs at least one head and c_hidden >= 1");
  }
  if (options.value_states != kS && options.value_states != kNumAminoAcids) {
    throw InputError("factored attention value states must be 20 or 21, got " + std::to_string(options.value_states));
  }

  FactoredResult result;
  detail::WeightedAlignment input = detail::weigh_alignment(alignment, options, "factored", result);
  const Alignment& a = input.filtered.alignment;
  result.lambda_single = options.lambda_single;
  result.lambda_pair = ccmpred_lambda_pair(a.length, options.lambda_pair_factor);
  PottsObjective objective(a, std::move(input.weights), {options.lambda_single, result.lambda_pair});

  const int64_t L = a.length, H = options.n_heads, d = options.c_hidden;
  FactoredParameters params = FactoredParameters::make(L, H, d, options.value_states);
  std::vector<float> x(static_cast<std::size_t>(params.size()), 0.0f);
  {
    const std::vector<float> potts_start = objective.initial_parameters();  // fields first
    std::copy(potts_start.begin(), potts_start.begin() + L * kF, x.begin());
    Rng rng(options.seed);
    const auto qk_end = x.begin() + L * kF + 2 * H * L * d;
    for (auto it = x.begin() + L * kF; it != qk_end; ++it) *it = static_cast<float>(options.init_std) * rng.normal();
  }

  // Scores of the fit at x: the symmetric part J that the pseudo-likelihood saw, its
  // Frobenius norms, APC, in input numbering.
  PseudoLikelihoodWorkspace workspace;
  const auto score = [&](const float* x_at) {
    params.load(x_at);
    NoGradGuard no_grad;
    const Tensor mixing = factored_attention(params.query, params.key).value();  // [L * L, H]
    mixture_parameters(objective, params.fields.value(), mixing, params.value.value(), workspace);
    const Tensor couplings = objective.couplings(workspace.parameters.data());  // [L, L, 21, 21]
    const Tensor fitted = average_product_correction(coupling_norms(couplings));
    return detail::expand_fitted_scores(fitted, result.columns, alignment.length);  // [L, L]
  };

  const LbfgsObjective f = [&](const float* v, float* g) {
    params.load(v);
    double value = 0.0;
    Var loss = mixture_pseudo_likelihood(objective, params.fields, factored_attention(params.query, params.key),
                                         params.value, workspace, &value);
    loss.backward();
    params.store_grad(g);
    return value;
  };
  const LbfgsCallback callback = [&](const LbfgsProgress& p) {
    if (progress) progress({p.iteration, p.evaluations, p.objective, p.gradient_norm, elapsed()});
    if (snapshot && std::find(options.snapshot_iterations.begin(), options.snapshot_iterations.end(),
                              p.iteration) != options.snapshot_iterations.end()) {
      snapshot(p.iteration, score(p.x));
    }
    return true;
  };
  const LbfgsResult fit = lbfgs_minimize(x, f, options.optimizer, callback);
  result.status = fit.status;
  result.iterations = fit.iterations;
  result.evaluations = fit.evaluations;
  result.objective = fit.objective;
  result.scores = score(x.data());  // [L, L]
  {
    NoGradGuard no_grad;  // score(x) loaded the fitted parameters
    result.query = ops::reshape(params.query, {H, L, d}).value();  // [H, L', d]
    result.key = ops::reshape(params.key, {H, L, d}).value();      // [H, L', d]
    const Tensor mixing = factored_attention(params.query, params.key).value();  // [L' * L', H]
    result.attention = Tensor({H, L, L});                                        // [H, L', L']
    for (int64_t p = 0; p < L * L; ++p)
      for (int64_t h = 0; h < H; ++h) result.attention[h * L * L + p] = mixing[p * H + h];
  }
  result.seconds = elapsed();
  return result;
}

const OptionList<FactoredOptions>& FactoredOptions::option_list() {
  using O = FactoredOptions;
  static const OptionList<O> list =
      OptionList<O>("factored")
          .include(&O::filter, AlignmentFilterOptions::option_list())
          .add("identity_threshold", &O::identity_threshold, "sequence-weight identity threshold; >= 1: uniform weights",
               OptionRange::positive())
          .add("n_heads", &O::n_heads, "attention heads H", OptionRange::positive())
          .add("c_hidden", &O::c_hidden, "query and key width per head", OptionRange::positive())
          .add("value_states", &O::value_states,
               "states of the value matrices: 20 (amino acids, no couplings to gaps) or 21 (the gap too)",
               OptionRange{20.0, 21.0})
          .add("lambda_single", &O::lambda_single, "weight of the squared fields", OptionRange::at_least(0))
          .add("lambda_pair_factor", &O::lambda_pair_factor, "lambda_pair = lambda_pair_factor (L - 1)",
               OptionRange::at_least(0))
          .add("init_std", &O::init_std, "standard deviation of the initial query and key entries",
               OptionRange::positive())
          .add("seed", &O::seed, "seed of the initial queries and keys")
          .include(&O::optimizer, LbfgsOptions::option_list());
  return list;
}

nlohmann::json factored_parameters(const FactoredOptions& options, const PottsResult& result) {
  nlohmann::json j = FactoredOptions::option_list().to_json(options);
  j.update(detail::fit_statistics(result));
  return j;
}

}  // namespace attend::bio
