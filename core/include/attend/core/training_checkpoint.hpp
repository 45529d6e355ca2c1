#pragma once
/// Glue between a training run and a checkpoint file: capture a module (type and config),
/// its parameters, an optimizer's state and a trainer's progress; and rebuild or restore them,
/// so that a resumed run continues with the same bits as one that never stopped.

#include <memory>

#include "attend/core/checkpoint.hpp"
#include "attend/core/module.hpp"
#include "attend/core/optimizer.hpp"
#include "attend/core/parameter_arena.hpp"
#include "attend/core/registry.hpp"
#include "attend/core/trainer.hpp"

namespace attend {

/// Everything to save. `optimizer` and `trainer` may be null (an inference-only checkpoint).
CheckpointData capture_checkpoint(const Module& model, const ParameterArena& arena,
                                  const Optimizer* optimizer, const TrainerState* trainer);

/// Build the checkpoint's model through `registry` (a layer type the registry lacks, such as
/// one from a plugin that was not loaded, is an InputError naming it) with fresh parameters;
/// load its parameters with `load_parameters` once the caller has made its arena.
std::unique_ptr<Module> module_from_checkpoint(const CheckpointData& data, const Registry& registry);

/// Copy the checkpoint's parameters into `arena` by name; every name and shape must match.
void load_parameters(const CheckpointData& data, ParameterArena& arena);

/// The trainer's progress as saved in a checkpoint, and back. A state that contradicts the
/// checkpoint (an epoch other than the file's `/trainer` epoch) is an InputError.
Json trainer_state_to_json(const TrainerState& state);
TrainerState trainer_state_from_checkpoint(const CheckpointData& data);

/// Continue a run from `data`: its parameters into `arena`, its optimizer state into
/// `optimizer` (one value per arena value in every buffer) and its progress into `trainer`.
/// Whatever does not fit this model and optimizer (a checkpoint of another run, or a damaged
/// one) is an InputError, found before the first step.
void resume_from_checkpoint(const CheckpointData& data, ParameterArena& arena, Optimizer& optimizer, Trainer& trainer);

}  // namespace attend
