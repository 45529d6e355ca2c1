#pragma once
/// Activation recomputation ("gradient checkpointing", Chen et al., "Training Deep Nets with
/// Sublinear Memory Cost", 2016): keep a sub-graph's inputs, not its intermediates, and run
/// its forward again during the backward.

#include <functional>
#include <vector>

#include "attend/core/autodiff.hpp"

namespace attend {

/// A function of Vars (a module's forward) whose intermediates are not kept.
using RecomputeFn = std::function<Var(const std::vector<Var>&)>;

/// f(inputs), recording only the output. The forward runs without a tape; the backward
/// runs f again with the tape on (on fresh leaves holding the input values), backpropagates
/// the output gradient through it, and adds the leaves' gradients into `inputs`. Gradients of
/// `parameters` (the Vars that f reads besides its inputs, such as a module's weights) are
/// accumulated by that inner backward directly. f must be deterministic (fixed dropout seeds),
/// so the recomputed forward is bit-identical to the first. Peak memory: the kept inputs plus
/// one recomputed sub-graph at a time; cost: one more forward of f. Without gradients (or
/// when nothing requires one) this is just f(inputs).
Var recompute(const RecomputeFn& f, const std::vector<Var>& inputs, const std::vector<Var>& parameters);

}  // namespace attend
