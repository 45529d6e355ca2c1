#pragma once
/// `attend explain contacts` as a library call: which attention heads of a contact predictor
/// carry contacts (head_contact_maps.hpp), how the predictor's own scores compare, and, for
/// the Evoformer contact model, how much of one predicted contact comes from the alignment
/// (which sequences and columns) and how much from the potts scores (which residue pairs)
/// (contact_attribution.hpp).

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "attend/bio/alignment_h5.hpp"
#include "attend/bio/contact_attribution.hpp"
#include "attend/bio/contact_map.hpp"
#include "attend/bio/contact_metrics.hpp"
#include "attend/bio/contact_predictor.hpp"
#include "attend/bio/head_contact_maps.hpp"

namespace attend {
class Registry;
}

namespace attend::bio {

/// What to explain and how.
struct ContactExplainOptions {
  /// kFactored or kEvoformer (kPotts has no attention: an attend::InputError).
  ContactMethod method = ContactMethod::kFactored;
  FactoredOptions factored;  ///< factored: the fit
  PottsOptions potts;        ///< evoformer: the potts fit when the input stores no scores
  /// evoformer: the contact model file and the registry that builds it.
  std::string model_path;
  const Registry* registry = nullptr;
  /// The native contacts (nullptr: no precision).
  const ContactMap* truth = nullptr;
  /// evoformer: the explained pair (0-based, input numbering); none: top_long_range_pair of
  /// the model's probabilities. Ignored (must be none) for factored.
  std::optional<std::pair<int64_t, int64_t>> pair;
  /// evoformer: integrated-gradients steps (PathSteps::steps; 0: no attribution, the heads
  /// only), quadrature rule and completeness-gap bound.
  PathSteps path{QuadratureKind::kMidpoint, 50, 0.0, 2000};
};

/// Everything `attend explain contacts` reports.
struct ContactExplanation {
  std::string method;  ///< "factored" or "evoformer"
  std::string query;   ///< the query sequence (alignment row 0, gaps as '-')
  /// The predictor's own scores [L, L] (factored: APC of the coupling norms; evoformer: the
  /// contact probabilities) and, with a truth, their precision.
  Tensor scores;
  std::optional<ContactPrecision> precision;
  HeadContactMaps heads;
  /// With a truth: each head's precision (evaluate_heads), in head order.
  std::vector<ContactPrecision> head_precision;
  /// evoformer with steps >= 1: the attribution of one contact to the MSA and pair features,
  /// and the alignment rows and names of the S sequences the model read (row 0 the query).
  std::optional<ContactAttribution> attribution;
  std::vector<int64_t> sequence_rows;
  std::vector<std::string> sequence_names;
};

/// Progress of the two long parts: the fit (factored, or the potts scores evoformer reads)
/// and the integrated-gradient steps.
struct ContactExplainProgress {
  PottsProgressCallback fit;
  PathProgressFn steps;
};

/// Explain the predictor `options.method` on `input` (read_contact_input; `source` names it in
/// messages). Throws attend::InputError for potts, for a pair with factored or with no steps,
/// for a pair outside the alignment or of one column twice, and for a model file that does not
/// hold a contact model. Deterministic for any thread count.
ContactExplanation explain_contacts(const AlignmentFeatures& input, const std::string& source,
                                    const ContactExplainOptions& options, const ContactExplainProgress& progress = {});

}  // namespace attend::bio
