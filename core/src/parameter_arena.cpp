#include "attend/core/parameter_arena.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "attend/core/error.hpp"
#include "attend/core/memory_budget.hpp"
#include "attend/core/parallel.hpp"

namespace attend {

namespace {
// Elements per block for the flat-buffer loops; blocks depend on the arena size only.
constexpr int64_t kBlock = 16384;
}  // namespace

ParameterArena::ParameterArena(const std::vector<std::pair<std::string, Var>>& parameters) {
  std::unordered_set<std::string> names;
  std::unordered_map<const void*, std::string> seen;
  for (const auto& [name, var] : parameters) {
    ATTEND_CHECK(var.defined(), "parameter '" << name << "' is an undefined Var");
    ATTEND_CHECK(names.insert(name).second, "parameter name '" << name << "' appears twice");
    auto [it, fresh] = seen.emplace(var.id(), name);
    ATTEND_CHECK(fresh, "parameter '" << name << "' is the same Var as '" << it->second
                                      << "'; a shared parameter must be listed once");
    slots_.push_back(ArenaSlot{name, 0, var.shape(), var});
  }
  // Offsets: the trained parameters first, then the state values (requires_grad false).
  int64_t total = 0;
  for (const bool trained : {true, false}) {
    for (ArenaSlot& slot : slots_) {
      if (slot.var.requires_grad() != trained) continue;
      slot.offset = total;
      total += slot.numel();
    }
    if (trained) trainable_ = total;
  }
  // Values and gradients: a model whose tensors each fit may still not fit twice over.
  require_memory(8.0 * static_cast<double>(total), "a model of " + std::to_string(total) + " parameters (values and gradients)");
  values_.assign(static_cast<std::size_t>(total), 0.0f);
  grads_.assign(static_cast<std::size_t>(total), 0.0f);
  for (ArenaSlot& slot : slots_) {
    slot.var.bind_value(Tensor::view(values_.data() + slot.offset, slot.shape));
    slot.var.bind_grad(Tensor::view(grads_.data() + slot.offset, slot.shape));
  }
}

ParameterArena::~ParameterArena() { release(); }

ParameterArena::ParameterArena(ParameterArena&& other) noexcept
    : slots_(std::move(other.slots_)),
      trainable_(other.trainable_),
      values_(std::move(other.values_)),
      grads_(std::move(other.grads_)) {
  other.slots_.clear();
  other.trainable_ = 0;
  other.values_.clear();
  other.grads_.clear();
}

ParameterArena& ParameterArena::operator=(ParameterArena&& other) noexcept {
  if (this == &other) return *this;
  release();
  // Moving a std::vector hands over its heap buffer, so the Vars' views stay valid.
  slots_ = std::move(other.slots_);
  trainable_ = other.trainable_;
  values_ = std::move(other.values_);
  grads_ = std::move(other.grads_);
  other.slots_.clear();
  other.trainable_ = 0;
  other.values_.clear();
  other.grads_.clear();
  return *this;
}

void ParameterArena::release() {
  for (ArenaSlot& slot : slots_) {
    if (slot.numel() == 0) continue;
    if (slot.var.value().data() == values_.data() + slot.offset) {
      slot.var.bind_value(Tensor(slot.shape));
    }
    if (slot.var.grad().data() == grads_.data() + slot.offset) {
      slot.var.bind_grad(Tensor(slot.shape));
    }
  }
  slots_.clear();
  trainable_ = 0;
  values_.clear();
  grads_.clear();
}

const ArenaSlot* ParameterArena::find(const std::string& name) const {
  for (const ArenaSlot& slot : slots_) {
    if (slot.name == name) return &slot;
  }
  return nullptr;
}

Tensor ParameterArena::snapshot() const {
  Tensor out = Tensor::uninitialized(Shape{size()});
  std::copy(values_.begin(), values_.end(), out.begin());
  return out;
}

void ParameterArena::snapshot_into(Tensor& out) const {
  if (out.shape() != Shape{size()}) out = Tensor::uninitialized(Shape{size()});
  std::copy(values_.begin(), values_.end(), out.begin());
}

void ParameterArena::restore(const Tensor& values) {
  ATTEND_CHECK(values.numel() == size(), "restoring " << values.numel()
                                                      << " values into an arena of " << size());
  std::copy(values.begin(), values.end(), values_.begin());
}

void ParameterArena::zero_grad() {
  for (ArenaSlot& slot : slots_) slot.var.zero_grad();
}

double ParameterArena::global_grad_norm() const {
  const int64_t n = size();
  const int64_t n_blocks = (n + kBlock - 1) / kBlock;
  std::vector<double> partial(static_cast<std::size_t>(n_blocks), 0.0);
  parallel_for_blocks(n, kBlock, [&](int64_t lo, int64_t hi) {
    double s = 0.0;
    for (int64_t i = lo; i < hi; ++i) s += static_cast<double>(grads_[i]) * grads_[i];
    partial[static_cast<std::size_t>(lo / kBlock)] = s;
  });
  double total = 0.0;
  for (double s : partial) total += s;  // in block order: independent of the thread count
  return std::sqrt(total);
}

double ParameterArena::clip_grad_norm(double max_norm) {
  ATTEND_CHECK(max_norm > 0.0, "clip_grad_norm needs max_norm > 0, got " << max_norm);
  const double norm = global_grad_norm();
  const double coef = max_norm / (norm + 1e-6);
  if (coef >= 1.0) return norm;
  const float scale = static_cast<float>(coef);
  parallel_for_blocks(size(), kBlock, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) grads_[i] *= scale;
  });
  return norm;
}

}  // namespace attend
