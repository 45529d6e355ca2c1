#pragma once
/// ParameterArena: every parameter of a model in one flat float buffer, every gradient in a
/// second one of the same layout (the mlpack design). Each parameter Var's value and gradient
/// become views into the buffers, so layers keep using their Vars unchanged while optimizers,
/// gradient clipping, best-model snapshots and checkpoints work on two flat arrays.
/// A parameter that does not require a gradient is state a layer updates itself (a batch
/// norm's running mean and variance): it is packed after the trained ones, saved, snapshotted
/// and restored with them, and never touched by an optimizer (`trainable_size()`).

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "attend/core/autodiff.hpp"

namespace attend {

/// Where one parameter lives in the arena.
struct ArenaSlot {
  std::string name;    ///< dotted path (`layers.0.weight`)
  int64_t offset = 0;  ///< first element in the flat buffers
  Shape shape;         ///< the parameter's shape
  Var var;             ///< the parameter (its value and gradient are views into the arena)

  int64_t numel() const { return shape_numel(shape); }
};

/// Movable, never copied (two arenas cannot own one parameter's views). Flat-buffer loops run
/// in parallel over fixed blocks of 16384 values.
class ParameterArena {
 public:
  /// An arena holding nothing.
  ParameterArena() = default;
  /// Pack `parameters` (as from `Module::named_parameters()`) in the given order: their
  /// current values are copied into the value buffer, gradients start at zero, and every Var
  /// is rebound to views of the buffers. Names must be unique and no Var may appear twice.
  explicit ParameterArena(const std::vector<std::pair<std::string, Var>>& parameters);
  /// Gives every parameter still bound here its own memory again (values kept), so a module
  /// outlives its arena safely. Parameters since rebound to another arena are left alone.
  ~ParameterArena();

  ParameterArena(const ParameterArena&) = delete;
  ParameterArena& operator=(const ParameterArena&) = delete;
  /// Moving keeps the buffers (the Vars' views stay valid); the source is left empty.
  ParameterArena(ParameterArena&& other) noexcept;
  ParameterArena& operator=(ParameterArena&& other) noexcept;

  /// Total number of parameter values.
  int64_t size() const { return static_cast<int64_t>(values_.size()); }
  /// Values [0, trainable_size()) belong to parameters that require a gradient, the rest to
  /// state values (requires_grad false); optimizers update only the first.
  int64_t trainable_size() const { return trainable_; }
  /// The parameters in packing order (the order they were given in).
  const std::vector<ArenaSlot>& slots() const { return slots_; }
  /// The slot named `name`, or nullptr.
  const ArenaSlot* find(const std::string& name) const;

  /// All parameter values, flat, in slot order.
  std::span<float> values() { return values_; }
  std::span<const float> values() const { return values_; }
  /// All gradients, flat, in the same layout as `values()`.
  std::span<float> grads() { return grads_; }
  std::span<const float> grads() const { return grads_; }

  /// An owning copy of all values, shape [size()] (best-model snapshots, checkpoints).
  Tensor snapshot() const;
  /// The same into `out`, reusing its memory when it already has shape [size()] (a training
  /// loop that snapshots every improvement then allocates, and page-faults, only once).
  void snapshot_into(Tensor& out) const;
  /// Copy `values` (numel == size()) back into the arena.
  void restore(const Tensor& values);

  /// Zero every gradient (and mark them "none accumulated" for the autodiff tape).
  void zero_grad();
  /// Euclidean norm of all gradients. Sums of squares are taken in double over fixed blocks
  /// in parallel, then the block sums are added in order: the same bits for any thread count.
  double global_grad_norm() const;
  /// Scale all gradients by max_norm / (norm + 1e-6) when the global norm exceeds
  /// `max_norm` (PyTorch's clip_grad_norm_); returns the norm before clipping.
  double clip_grad_norm(double max_norm);

 private:
  void release();

  std::vector<ArenaSlot> slots_;
  int64_t trainable_ = 0;  ///< values of the parameters that require a gradient (packed first)
  std::vector<float> values_;
  std::vector<float> grads_;
};

}  // namespace attend
