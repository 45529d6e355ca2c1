#include "attend/bio/contact_predictor.hpp"

#include "attend/bio/contact_features.hpp"
#include "attend/bio/contact_model.hpp"
#include "attend/bio/sequence_weights.hpp"
#include "attend/core/error.hpp"
#include "attend/core/quoted_input.hpp"

namespace attend::bio {

std::string to_string(ContactMethod method) {
  switch (method) {
    case ContactMethod::kPotts: return "potts";
    case ContactMethod::kFactored: return "factored";
    case ContactMethod::kEvoformer: return "evoformer";
  }
  throw Error("unknown contact method");
}

ContactMethod parse_contact_method(const std::string& name) {
  for (ContactMethod m : {ContactMethod::kPotts, ContactMethod::kFactored, ContactMethod::kEvoformer}) {
    if (name == to_string(m)) return m;
  }
  throw InputError("unknown --method " + quoted_input(name) + " (choose potts, factored or evoformer)");
}

namespace {

void check_enough_columns(const Alignment& alignment, const std::string& source) {
  const int64_t L = alignment.length;
  if (L < 3) throw InputError(source, 0, "contact prediction needs at least 3 columns, got " + std::to_string(L));
}

}  // namespace

AlignmentFeatures read_contact_input(const std::string& path, AlignmentFormat format,
                                     const std::string& query) {
  AlignmentFeatures features;
  if (is_hdf5_file(path)) {
    features = read_alignment_h5(path);
  } else {
    features.alignment = read_alignment(path, format, query);
  }
  check_enough_columns(features.alignment, path);
  return features;
}

namespace {

/// The Potts fit stored in an alignment file, as a result of predict_contacts_potts.
PottsResult stored_potts_fit(const AlignmentFeatures& input) {
  PottsResult fit;
  fit.scores = input.scores;
  fit.num_sequences = input.scores_parameters.value("num_sequences", input.alignment.num_sequences());
  fit.n_eff = input.scores_parameters.value("n_eff", input.n_eff);
  fit.iterations = input.scores_parameters.value("iterations", 0);
  return fit;
}

void check_options(const ContactPredictorOptions& o) {
  if (!o.model_path.empty() && o.method != ContactMethod::kEvoformer) throw InputError("--model needs --method evoformer");
  if (o.method == ContactMethod::kEvoformer && (o.model_path.empty() || o.registry == nullptr)) {
    throw Error("predict_contacts: the evoformer method needs a model path and a registry");
  }
  if (!o.factored.snapshot_iterations.empty() && (o.method != ContactMethod::kFactored || o.truth == nullptr)) {
    throw InputError("--score-at-iterations needs --method factored and a truth (--truth or --pdb)");
  }
}

}  // namespace

ContactPredictorResult predict_contacts(const AlignmentFeatures& input, const std::string& source,
                                        const ContactPredictorOptions& options, const PottsProgressCallback& progress) {
  check_options(options);
  const Alignment& alignment = input.alignment;
  check_enough_columns(alignment, source);
  ContactPredictorResult r;
  r.prediction.query = alignment.sequence(0);
  r.prediction.method = to_string(options.method);
  r.scores_were_stored = options.method != ContactMethod::kFactored && input.scores.numel() > 0 &&
                         input.scores_method == "potts";
  if (r.scores_were_stored) {
    r.fit = stored_potts_fit(input);
    r.prediction.parameters = input.scores_parameters;
  } else if (options.method != ContactMethod::kFactored) {
    r.fit = predict_contacts_potts(alignment, options.potts, progress);
    r.prediction.parameters = potts_parameters(options.potts, r.fit);
  } else {
    const auto snapshot = [&](int iteration, const Tensor& scores) {
      r.snapshots.push_back({iteration, evaluate_contacts(scores, *options.truth)});
    };
    r.fit = predict_contacts_factored(alignment, options.factored, progress, snapshot);
    r.prediction.parameters = factored_parameters(options.factored, r.fit);
  }
  r.prediction.scores = r.fit.scores;
  if (options.method == ContactMethod::kEvoformer) {  // the model reads the Potts scores
    AlignmentFeatures family = input;
    if (!r.scores_were_stored) {
      family.scores = r.fit.scores;
      family.weights = sequence_weights(alignment, kDefaultIdentityThreshold);
    }
    const std::unique_ptr<ContactModel> model = load_contact_model(options.model_path, *options.registry);
    r.prediction.scores = predict_contact_probabilities(*model, make_family_features(family, source));
    r.prediction.parameters["model"] = options.model_path;
  }
  return r;
}

}  // namespace attend::bio
