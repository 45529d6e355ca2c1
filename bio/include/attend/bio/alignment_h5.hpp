#pragma once
/// The HDF5 alignment file (schema `attend.alignment`, version 1; docs/hdf5-schema.md): an
/// encoded alignment with its sequence weights, for models that train on alignments, and
/// optionally unsupervised contact scores. Written atomically (core's AtomicOutput).

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attend/bio/alignment.hpp"
#include "attend/core/tensor.hpp"

namespace attend::bio {

/// Schema name and version of the HDF5 alignment file.
inline constexpr char kAlignmentSchema[] = "attend.alignment";
inline constexpr int64_t kAlignmentSchemaVersion = 1;

/// What the alignment file holds.
struct AlignmentFeatures {
  /// The alignment (query at row 0).
  Alignment alignment;
  /// Sequence weights [N] and their sum.
  std::vector<float> weights;
  double n_eff = 0.0;
  /// The identity threshold the weights were computed with.
  double identity_threshold = 0.8;
  /// Optional contact scores [L, L] (empty tensor: none), the method that made them and its
  /// parameters.
  Tensor scores;
  std::string scores_method;
  nlohmann::json scores_parameters = nlohmann::json::object();
};

/// Write `/codes` int32 [N, L], `/weights` float32 [N], `/names` [N] strings, `/query`
/// (letters), root attributes (schema, length, num_sequences, n_eff, identity_threshold,
/// query_index, alphabet) and, when scores are present, `/scores` [L, L] with
/// `/scores_config` (JSON) and the attribute `scores_method`.
void write_alignment_h5(const std::string& path, const AlignmentFeatures& features);

/// True when `path` starts with the HDF5 signature (an alignment file rather than a text
/// alignment); false for a missing or unreadable file.
bool is_hdf5_file(const std::string& path);

/// Read a file written by `write_alignment_h5`; problems throw attend::InputError.
AlignmentFeatures read_alignment_h5(const std::string& path);

}  // namespace attend::bio
