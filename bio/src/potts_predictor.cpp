#include "attend/bio/potts_predictor.hpp"

#include <chrono>

#include "attend/bio/apc.hpp"
#include "attend/bio/potts_model.hpp"
#include "attend/core/error.hpp"
#include "fitted_scores.hpp"

namespace attend::bio {

std::string to_string(PottsRegularizationRule rule) {
  return rule == PottsRegularizationRule::kPlmdca ? "plmdca" : "ccmpred";
}

PottsRegularizationRule parse_potts_regularization_rule(const std::string& name) {
  if (name == "ccmpred") return PottsRegularizationRule::kCcmpred;
  ATTEND_CHECK(name == "plmdca", "unknown potts regularization '" << name << "' (choose ccmpred or plmdca)");
  return PottsRegularizationRule::kPlmdca;
}

// CCMpred: Seemayer et al. 2014. plmDCA: Ekeberg et al. 2013 (symmetric) and 2014
// (asymmetric, whose lambda_J * B_eff / 2 per regression is lambda * N_eff per symmetric pair).
PottsRegularization potts_regularization(const PottsOptions& options, int64_t length, double n_eff) {
  if (options.regularization == PottsRegularizationRule::kCcmpred) {
    return {options.lambda_single, ccmpred_lambda_pair(length, options.lambda_pair_factor)};
  }
  const double lambda = n_eff > 500.0 ? 0.01 : 0.1 - (0.1 - 0.01) * n_eff / 500.0;
  return {lambda * n_eff, lambda * n_eff};
}

// CCMpred (Seemayer, Gruber & Soding, Bioinformatics 2014) with L-BFGS in place of
// conjugate gradients.
PottsResult predict_contacts_potts(const Alignment& alignment, const PottsOptions& options,
                                   const PottsProgressCallback& progress) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };

  PottsResult result;
  detail::WeightedAlignment input = detail::weigh_alignment(alignment, options, "potts", result);
  const Alignment& a = input.filtered.alignment;
  const PottsRegularization regularization = potts_regularization(options, a.length, result.n_eff);
  result.lambda_single = regularization.lambda_single;
  result.lambda_pair = regularization.lambda_pair;

  PottsObjective objective(a, std::move(input.weights), regularization);
  std::vector<float> x = objective.initial_parameters();
  const LbfgsCallback callback = [&](const LbfgsProgress& p) {
    if (progress) progress({p.iteration, p.evaluations, p.objective, p.gradient_norm, elapsed()});
    return true;
  };
  const LbfgsResult fit = lbfgs_minimize(
      x, [&](const float* v, float* g) { return objective.evaluate(v, g); }, options.optimizer,
      callback);
  result.status = fit.status;
  result.iterations = fit.iterations;
  result.evaluations = fit.evaluations;
  result.objective = fit.objective;

  const Tensor fitted = average_product_correction(coupling_norms(objective.couplings(x.data())));
  result.scores = detail::expand_fitted_scores(fitted, result.columns, alignment.length);  // [L, L]
  result.seconds = elapsed();
  return result;
}

const OptionList<PottsOptions>& PottsOptions::option_list() {
  using O = PottsOptions;
  static const OptionList<O> list =
      OptionList<O>("potts")
          .choice("regularization", &O::regularization,
                  {{"ccmpred", PottsRegularizationRule::kCcmpred}, {"plmdca", PottsRegularizationRule::kPlmdca}},
                  "ccmpred: the strengths below; plmdca: 0.01 N_eff on fields and couplings, more below N_eff 500")
          .include(&O::filter, AlignmentFilterOptions::option_list())
          .add("identity_threshold", &O::identity_threshold, "sequence-weight identity threshold; >= 1: uniform weights",
               OptionRange::positive())
          .add("lambda_single", &O::lambda_single, "weight of the squared fields (ccmpred)", OptionRange::at_least(0))
          .add("lambda_pair_factor", &O::lambda_pair_factor, "lambda_pair = lambda_pair_factor (L - 1) (ccmpred)",
               OptionRange::at_least(0))
          .include(&O::optimizer, LbfgsOptions::option_list());
  return list;
}

nlohmann::json potts_parameters(const PottsOptions& options, const PottsResult& result) {
  nlohmann::json p = PottsOptions::option_list().to_json(options);
  p.update(detail::fit_statistics(result));
  p["lambda_single"] = result.lambda_single;  // the strength used (plmdca sets its own)
  return p;
}

}  // namespace attend::bio
