#pragma once
/// Checkpoints: a model's description and parameters, an optimizer's state and a trainer's
/// progress in one HDF5 file (schema "attend.checkpoint", version 1; docs/hdf5-schema.md).
///
/// This is the layout only: it knows nothing of modules or optimizers, so any trainer can use
/// it. A model saves `{name, type, config}` per module (or any JSON that rebuilds it) and its
/// named parameters; an optimizer saves its type, config and named state tensors.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "attend/core/tensor.hpp"

namespace attend {

using Json = nlohmann::json;

/// Schema name and the newest version this build writes and reads.
inline constexpr const char* kCheckpointSchema = "attend.checkpoint";
inline constexpr int64_t kCheckpointSchemaVersion = 1;

/// Everything a checkpoint holds. Parameter and state names are kept exactly (dotted paths
/// such as `layers.0.att_src`; they must not contain '/'), in order.
struct CheckpointData {
  /// What rebuilds the model, e.g. an array of {name, type, config}.
  Json model;
  /// Named parameter values.
  std::vector<std::pair<std::string, Tensor>> parameters;
  /// Registry name of the optimizer ("adam", ...); empty when none.
  std::string optimizer_type;
  /// The optimizer's options.
  Json optimizer_config;
  /// Named optimizer state tensors (moments, step counters, ...).
  std::vector<std::pair<std::string, Tensor>> optimizer_state;
  /// Completed training epochs.
  int64_t epoch = 0;
  /// Anything else the trainer needs to resume (best metric, patience, RNG state, ...).
  Json trainer_state;
  /// Named tensors the trainer needs to resume (the best parameters so far, ...).
  std::vector<std::pair<std::string, Tensor>> trainer_tensors;
};

/// Write `data` to `path` atomically: the file is written under a temporary name next to
/// `path` and renamed onto it only when complete, so a failure (an InputError naming `path`)
/// leaves any previous checkpoint in place and no temporary file behind.
void save_checkpoint(const std::string& path, const CheckpointData& data);

/// Read a checkpoint; throws InputError naming the file and what was wrong when it is missing,
/// not a checkpoint, of an unsupported schema version or incomplete.
CheckpointData load_checkpoint(const std::string& path);

}  // namespace attend
