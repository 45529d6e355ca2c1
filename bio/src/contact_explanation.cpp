#include "attend/bio/contact_explanation.hpp"

#include "attend/bio/contact_features.hpp"
#include "attend/bio/contact_model.hpp"
#include "attend/bio/sequence_weights.hpp"
#include "attend/core/error.hpp"

namespace attend::bio {

namespace {

void check_options(const ContactExplainOptions& o, int64_t L, const std::string& source) {
  if (o.method == ContactMethod::kPotts) {
    throw InputError("explain contacts: potts has no attention heads (choose factored or evoformer)");
  }
  if (o.method == ContactMethod::kFactored && o.pair) {
    throw InputError("--pair needs --method evoformer: the factored fit is not a differentiable function of the alignment");
  }
  if (o.method == ContactMethod::kEvoformer && (o.model_path.empty() || o.registry == nullptr)) {
    throw Error("explain_contacts: the evoformer method needs a model path and a registry");
  }
  if (o.pair) {
    const auto [i, j] = *o.pair;
    if (i < 0 || j < 0 || i >= L || j >= L || i == j) {
      throw InputError(source, 0,
                       "--pair " + std::to_string(i + 1) + "," + std::to_string(j + 1) + ": expected two different columns in 1.." +
                           std::to_string(L));
    }
  }
  if (o.path.steps < 0) throw InputError("--steps must be >= 0, got " + std::to_string(o.path.steps));
  if (o.pair && o.path.steps == 0) throw InputError("--pair needs integrated-gradient steps (--steps >= 1)");
}

void explain_factored(const AlignmentFeatures& input, const ContactExplainOptions& o, const ContactExplainProgress& progress,
                      ContactExplanation& x) {
  const FactoredResult fit = predict_contacts_factored(input.alignment, o.factored, progress.fit);
  x.scores = fit.scores;
  x.heads = factored_head_maps(fit, input.alignment.length);
}

void explain_evoformer(const AlignmentFeatures& input, const std::string& source, const ContactExplainOptions& o,
                       const ContactExplainProgress& progress, ContactExplanation& x) {
  AlignmentFeatures family = input;  // the model reads the potts scores: stored, or fitted here
  if (input.scores.numel() == 0 || input.scores_method != "potts") {
    family.scores = predict_contacts_potts(input.alignment, o.potts, progress.fit).scores;
    family.scores_method = "potts";
    family.weights = sequence_weights(input.alignment, kDefaultIdentityThreshold);
  }
  const std::unique_ptr<ContactModel> model = load_contact_model(o.model_path, *o.registry);
  const FamilyFeatures features = make_family_features(family, source);
  const ContactModelInput model_input = whole_family_input(*model, features);
  x.scores = predict_contact_probabilities(*model, features);
  x.heads = evoformer_head_maps(*model, model_input);
  if (o.path.steps == 0) return;  // the heads only
  x.sequence_rows = whole_family_rows(*model, features);
  for (const int64_t row : x.sequence_rows) x.sequence_names.push_back(features.alignment.names[static_cast<std::size_t>(row)]);
  auto [i, j] = o.pair ? *o.pair : top_long_range_pair(x.scores);
  if (i > j) std::swap(i, j);
  x.attribution = integrated_gradients_contact(*model, model_input, i, j, o.path, progress.steps);
}

}  // namespace

ContactExplanation explain_contacts(const AlignmentFeatures& input, const std::string& source,
                                    const ContactExplainOptions& options, const ContactExplainProgress& progress) {
  const int64_t L = input.alignment.length;
  check_options(options, L, source);
  if (L < 3) throw InputError(source, 0, "contact prediction needs at least 3 columns, got " + std::to_string(L));
  ContactExplanation x;
  x.method = to_string(options.method);
  x.query = input.alignment.sequence(0);
  if (options.method == ContactMethod::kFactored) {
    explain_factored(input, options, progress, x);
  } else {
    explain_evoformer(input, source, options, progress, x);
  }
  if (options.truth) {
    x.precision = evaluate_contacts(x.scores, *options.truth);
    x.head_precision = evaluate_heads(x.heads, *options.truth);
  }
  return x;
}

}  // namespace attend::bio
