#pragma once
/// Reverse-mode automatic differentiation.
///
/// A `Var` is a shared handle to a node holding a Tensor value and, when gradients are on, a
/// gradient and the closure that sends the gradient to the node's inputs. Ops are free
/// functions building new Vars with `Var::from_op`; `backward()` orders the recorded graph
/// topologically (the tape) and runs the closures in reverse. Inside a `NoGradGuard` nothing
/// is recorded, so an inference forward pass shares no mutable state and is re-entrant.

#include <functional>
#include <memory>
#include <vector>

#include "attend/core/tensor.hpp"

namespace attend {

/// Called during backward with the op's output value and the gradient of the loss w.r.t. it.
using BackwardFn = std::function<void(const Tensor& value, const Tensor& grad)>;

namespace detail {
struct VarNode;
}

/// A Var is a handle (like a shared pointer): copies share one node, and gradient methods
/// are const because they change the shared node, not the handle.
class Var {
 public:
  /// An undefined Var (no value).
  Var() = default;
  /// A leaf holding `value`; a leaf with `requires_grad` collects a gradient in backward.
  explicit Var(Tensor value, bool requires_grad = false);

  bool defined() const { return node_ != nullptr; }
  const Tensor& value() const;
  Tensor& value();
  const Shape& shape() const { return value().shape(); }
  int64_t dim(int axis) const { return value().dim(axis); }

  bool requires_grad() const;
  /// Only for leaves (parameters, inputs under test).
  void set_requires_grad(bool on);
  /// Whether a gradient has been accumulated since the last `zero_grad`.
  bool has_grad() const;
  /// The gradient (zeros of the value's shape when none has been accumulated).
  const Tensor& grad() const;
  /// The gradient buffer, allocated as zeros on first use; op backward closures add into it.
  Tensor& grad_mut() const;
  /// Add `g` (same shape) into the gradient.
  void accumulate_grad(const Tensor& g) const;
  /// Forget the gradient (views into an arena are zeroed in place instead).
  void zero_grad() const;
  /// Make the gradient live in `storage` (the value's shape). A view (into the parameter
  /// arena) marks the gradient bound: it is zeroed in place, never reallocated. An owning
  /// tensor unbinds it again. Either way the gradient starts as "none accumulated".
  void bind_grad(Tensor storage);
  /// Make the value live in `storage` (the value's shape): the current values are copied in,
  /// then the node keeps `storage` itself. A view moves a parameter into an arena; an owning
  /// tensor gives it its own memory again. Only for leaves.
  void bind_value(Tensor storage);

  /// Backpropagate from this scalar (its gradient is seeded with 1).
  void backward();
  /// Backpropagate with an explicit seed gradient of the value's shape.
  void backward(const Tensor& seed);

  /// A new leaf sharing no graph with this one (the value is copied).
  Var detach() const;

  /// For op authors: wrap an op's output. When gradients are on and any input requires one,
  /// the result records `inputs` and `fn`; otherwise it is a plain leaf without gradient.
  static Var from_op(Tensor value, std::vector<Var> inputs, BackwardFn fn);

  /// Identity of the underlying node (for maps keyed by Var).
  const void* id() const { return node_.get(); }

 private:
  std::shared_ptr<detail::VarNode> node_;
};

/// Whether ops record the graph on this thread (true unless inside a NoGradGuard).
bool grad_enabled();

/// Turns recording off for its lifetime on this thread (inference).
class NoGradGuard {
 public:
  NoGradGuard();
  ~NoGradGuard();
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool previous_;
};

}  // namespace attend
