#pragma once
/// Contact prediction for one alignment by a named method: the driver that `attend contacts
/// predict` (and any other front end) calls. `potts` fits CCMpred's pseudo-likelihood Potts
/// model (potts_predictor.hpp), `factored` factored attention (Bhattacharya et al. 2021;
/// factored_attention.hpp), `evoformer` runs the trained contact model (contact_model.hpp) on
/// the Potts scores, reusing scores stored in an alignment HDF5 file when present.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "attend/bio/alignment.hpp"
#include "attend/bio/alignment_h5.hpp"
#include "attend/bio/contact_map.hpp"
#include "attend/bio/contact_metrics.hpp"
#include "attend/bio/contact_writers.hpp"
#include "attend/bio/factored_attention.hpp"
#include "attend/bio/potts_predictor.hpp"

namespace attend {
class Registry;
}

namespace attend::bio {

enum class ContactMethod { kPotts, kFactored, kEvoformer };

/// "potts", "factored", "evoformer".
std::string to_string(ContactMethod method);
/// Inverse of to_string; any other name is an attend::InputError that lists the choices.
ContactMethod parse_contact_method(const std::string& name);

/// The input of a method, read from `path`: an alignment file in `format` (query `query`, or
/// the first sequence), or an alignment HDF5 file (attend convert), whose stored Potts scores
/// potts and evoformer reuse (factored fits the rows it stores). Throws attend::InputError for
/// fewer than 3 columns.
AlignmentFeatures read_contact_input(const std::string& path, AlignmentFormat format = AlignmentFormat::kAuto,
                                     const std::string& query = "");

/// What to run.
struct ContactPredictorOptions {
  ContactMethod method = ContactMethod::kPotts;
  PottsOptions potts;        ///< potts, and the scores evoformer reads when none are stored
  FactoredOptions factored;  ///< factored; its snapshot_iterations need `truth`
  /// evoformer: the contact model file (`contacts train`) and the registry that builds it.
  std::string model_path;
  const Registry* registry = nullptr;
  /// The native contacts, for factored's snapshots (nullptr: none).
  const ContactMap* truth = nullptr;
};

/// The precision the factored fit would have reached had it stopped after `iteration`.
struct ContactSnapshot {
  int iteration = 0;
  ContactPrecision precision;
};

struct ContactPredictorResult {
  ContactPrediction prediction;  ///< scores [L, L], query, method, parameters
  PottsResult fit;               ///< statistics of the fit (scores: the method's raw scores)
  bool scores_were_stored = false;  ///< potts / evoformer: the scores came from the input file
  std::vector<ContactSnapshot> snapshots;
};

/// Predict contacts of `input` (read_contact_input; `source` names it in messages and in
/// the evoformer's family name). `progress` is called after every iteration of a fit.
/// Throws attend::InputError for fewer than 3 columns and for options the method cannot take
/// (a model path without evoformer, snapshots without factored or without a truth, a model
/// file that does not hold a contact model).
ContactPredictorResult predict_contacts(const AlignmentFeatures& input, const std::string& source,
                                        const ContactPredictorOptions& options,
                                        const PottsProgressCallback& progress = {});

}  // namespace attend::bio
