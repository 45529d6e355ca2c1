#pragma once
/// Readers for the prediction files of contact_writers.hpp, so that any of them can be
/// evaluated (`attend contacts eval --pred`). Malformed files throw attend::InputError with
/// the file and the line.

#include <string>

#include "attend/bio/contact_writers.hpp"
#include "attend/core/tensor.hpp"

namespace attend::bio {

/// A CCMpred `.mat` (plain or gzip): L lines of L whitespace-separated numbers; blank lines
/// and lines starting with `#` are skipped. Returns [L, L].
Tensor read_scores_mat(const std::string& path);

/// A CASP RR file: header records (PFRMAT, TARGET, AUTHOR, METHOD, REMARK, MODEL) are skipped,
/// letter-only lines form the sequence, `i j d1 d2 p` (or `i j p`) lines give pairs, `END`
/// stops. L is the sequence length when there is one, the largest index otherwise. Returns
/// [L, L] with p at (i, j) and (j, i) and 0 for pairs not listed. `sequence`, when given,
/// receives the sequence (empty when the file has none).
Tensor read_casp_rr(const std::string& path, std::string* sequence = nullptr);

/// The HDF5 prediction file (schema attend.contacts, version 1).
ContactPrediction read_contacts_h5(const std::string& path);

/// Any of the three, told apart by content: the HDF5 signature, a first record `PFRMAT`,
/// otherwise a matrix. Returns the scores [L, L]; `query`, when given, receives the query
/// sequence the file records (HDF5 and RR files; empty for a matrix or an RR file without one).
Tensor read_prediction(const std::string& path, std::string* query = nullptr);

}  // namespace attend::bio
