#pragma once
/// Writers for contact predictions: the CCMpred score matrix (`.mat`), the CASP RR contact
/// list (`.rr`), the HDF5 prediction file (`.h5`, schema `attend.contacts`, docs/hdf5-schema.md)
/// and a contact-map picture (`.png`). Every file is written under a temporary name and
/// renamed when complete (core's AtomicOutput), so a failure leaves no partial file and the
/// previous file, if any, in place. Scores are [L, L] (the upper triangle is read; higher
/// means more likely in contact). contact_readers.hpp reads the first three back.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attend/bio/contact_map.hpp"
#include "attend/core/tensor.hpp"

namespace attend::bio {

/// Schema name and version of the HDF5 prediction file.
inline constexpr char kContactsSchema[] = "attend.contacts";
inline constexpr int64_t kContactsSchemaVersion = 1;

/// A prediction as stored in the HDF5 file.
struct ContactPrediction {
  /// Scores [L, L].
  Tensor scores;
  /// The query sequence (letters, L of them).
  std::string query;
  /// Method name (`potts`, ...).
  std::string method;
  /// The method's parameters and fit statistics (a JSON object; scalars also become
  /// attributes of `/`).
  nlohmann::json parameters = nlohmann::json::object();
};

/// CCMpred's layout: L lines of L tab-separated scores (`%.9g`, so floats read back exactly).
void write_scores_mat(const std::string& path, const Tensor& scores);

/// Options of `write_casp_rr`.
struct RrOptions {
  /// The `TARGET` line.
  std::string target = "query";
  /// A `METHOD` line when not empty.
  std::string method;
  /// Pairs i < j with j - i >= min_separation are listed (6: the shortest CASP range; pairs
  /// closer in sequence are never evaluated). 1 lists every pair, as the format allows.
  int64_t min_separation = 6;
  /// List at most this many pairs, the best first (0: all).
  int64_t max_pairs = 0;
};

/// CASP RR (format of CASP 8-13): `PFRMAT RR`, `TARGET`, optional `METHOD`, `MODEL 1`, the
/// query in lines of 50 letters, then `i j 0 8 p` lines (1-based, i < j) sorted by score
/// descending (ties by i, then j), `END`. p is the score mapped linearly onto [0, 1] over the
/// listed pairs (the best pair 1), printed with 8 decimals; the ranking is the scores'.
void write_casp_rr(const std::string& path, const Tensor& scores, const std::string& query,
                   const RrOptions& options = {});

/// The HDF5 prediction file: `/scores` float32 [L, L], `/query` string, `/config` JSON of
/// the parameters, root attributes `schema`, `schema_version`, `method`, `length` and one per
/// scalar parameter.
void write_contacts_h5(const std::string& path, const ContactPrediction& prediction);

/// Options of `write_contact_png`.
struct ContactPngOptions {
  /// Predicted pairs drawn: the top k with j - i >= min_separation (k < 0: k = L).
  int64_t top_k = -1;
  int64_t min_separation = 6;
  /// Native contacts to overlay (nullptr: none); its length must be L.
  const ContactMap* truth = nullptr;
  /// The picture is L * s pixels square with the smallest s >= 1 making it at least this wide.
  int64_t min_pixels = 400;
};

/// An RGB PNG of the contact map (libpng). Row i, column j is pair (i, j). Upper triangle:
/// the top-k predictions, blue when a native contact, red when not, black without truth or
/// structure, over the native contacts in light grey. Lower triangle: the native contacts in
/// grey (the predictions mirrored when there is no truth). Diagonal light grey.
void write_contact_png(const std::string& path, const Tensor& scores,
                       const ContactPngOptions& options = {});

/// The files `write_contact_prediction` writes: PREFIX + each of .h5, .mat, .rr, .png.
const std::vector<std::string>& contact_prediction_suffixes();

/// Every file of a prediction: PREFIX.h5 (write_contacts_h5), .mat, .rr (TARGET `target`,
/// METHOD "attend contacts <method>") and .png (over `truth` when given). Each file is
/// atomic; run it inside an OutputTransaction to have all four or none.
void write_contact_prediction(const std::string& prefix, const ContactPrediction& prediction,
                              const std::string& target, const ContactMap* truth = nullptr);

}  // namespace attend::bio
