#include "attend/core/autodiff.hpp"

#include <algorithm>
#include <memory>
#include <unordered_set>
#include <utility>

#include "attend/core/error.hpp"
#include "attend/core/parallel.hpp"

namespace attend {

namespace detail {
struct VarNode {
  Tensor value;
  mutable Tensor grad;
  bool has_grad = false;
  bool grad_bound = false;  // grad is a view into external memory (the parameter arena)
  bool requires_grad = false;
  std::vector<std::shared_ptr<VarNode>> inputs;  // empty for leaves
  BackwardFn backward;                            // null for leaves
};
}  // namespace detail

namespace {
thread_local bool t_grad_enabled = true;

// Make `slot` be `storage` itself. Assignment would not do: assigning into a view copies
// values into the viewed memory instead of re-pointing it.
void replace_storage(Tensor& slot, Tensor&& storage) {
  std::destroy_at(&slot);
  std::construct_at(&slot, std::move(storage));  // the move constructor is noexcept
}

// Zero `t`; a large one in parallel over fixed blocks, so that a gradient of many MiB (a
// 100k-node layer's [N, H, C]) is cleared by all threads, each first touching a contiguous
// share of its pages as the kernels' static schedules later write them.
void zero(Tensor& t) {
  constexpr int64_t kBlock = int64_t{1} << 16;  // floats: 256 KiB
  float* data = t.data();
  if (t.numel() < 4 * kBlock) {
    std::fill(data, data + t.numel(), 0.0f);
    return;
  }
  parallel_for_blocks(t.numel(), kBlock, [data](int64_t lo, int64_t hi) { std::fill(data + lo, data + hi, 0.0f); });
}

void ensure_grad(detail::VarNode& node) {
  if (node.grad_bound) return;
  if (node.grad.shape() != node.value.shape()) {  // callers zero it before the first use
    node.grad = Tensor::uninitialized(node.value.shape());
    node.has_grad = false;
  }
}
}  // namespace

bool grad_enabled() { return t_grad_enabled; }

NoGradGuard::NoGradGuard() : previous_(t_grad_enabled) { t_grad_enabled = false; }
NoGradGuard::~NoGradGuard() { t_grad_enabled = previous_; }

Var::Var(Tensor value, bool requires_grad) : node_(std::make_shared<detail::VarNode>()) {
  node_->value = std::move(value);
  node_->requires_grad = requires_grad;
}

const Tensor& Var::value() const {
  ATTEND_CHECK(node_, "value() of an undefined Var");
  return node_->value;
}

Tensor& Var::value() {
  ATTEND_CHECK(node_, "value() of an undefined Var");
  return node_->value;
}

bool Var::requires_grad() const { return node_ && node_->requires_grad; }

void Var::set_requires_grad(bool on) {
  ATTEND_CHECK(node_, "set_requires_grad on an undefined Var");
  ATTEND_CHECK(!node_->backward, "set_requires_grad is for leaves, not op results");
  node_->requires_grad = on;
}

bool Var::has_grad() const { return node_ && node_->has_grad; }

const Tensor& Var::grad() const {
  ATTEND_CHECK(node_, "grad() of an undefined Var");
  ensure_grad(*node_);
  if (!node_->has_grad && !node_->grad_bound) zero(node_->grad);
  return node_->grad;
}

Tensor& Var::grad_mut() const {
  ATTEND_CHECK(node_, "grad_mut() of an undefined Var");
  ensure_grad(*node_);
  if (!node_->has_grad) {
    zero(node_->grad);
    node_->has_grad = true;
  }
  return node_->grad;
}

void Var::accumulate_grad(const Tensor& g) const {
  ATTEND_CHECK(node_, "accumulate_grad of an undefined Var");
  ensure_grad(*node_);
  Tensor& mine = node_->grad;
  ATTEND_CHECK(g.shape() == mine.shape(), "gradient of shape " << shape_to_string(g.shape())
                                                               << " for a value of shape "
                                                               << shape_to_string(mine.shape()));
  // The first gradient is copied (0 + g, without zeroing the buffer first), later ones added;
  // in parallel over fixed blocks, each element's sum in the order of the calls.
  constexpr int64_t kBlock = int64_t{1} << 16;  // floats: 256 KiB
  const bool first = !node_->has_grad;
  node_->has_grad = true;
  float* out = mine.data();
  const float* in = g.data();
  parallel_for_blocks(g.numel(), kBlock, [=](int64_t lo, int64_t hi) {
    if (first) {
      std::copy(in + lo, in + hi, out + lo);
    } else {
      for (int64_t i = lo; i < hi; ++i) out[i] += in[i];
    }
  });
}

void Var::zero_grad() const {
  if (!node_) return;
  if (node_->grad_bound) {
    node_->grad.fill(0.0f);
  } else {
    node_->grad = Tensor();
  }
  node_->has_grad = false;
}

void Var::bind_grad(Tensor storage) {
  ATTEND_CHECK(node_, "bind_grad on an undefined Var");
  ATTEND_CHECK(storage.shape() == node_->value.shape(),
               "bind_grad needs storage of shape " << shape_to_string(node_->value.shape())
                                                   << ", got "
                                                   << shape_to_string(storage.shape()));
  node_->grad_bound = storage.is_view();
  replace_storage(node_->grad, std::move(storage));
  node_->has_grad = false;
}

void Var::bind_value(Tensor storage) {
  ATTEND_CHECK(node_, "bind_value on an undefined Var");
  ATTEND_CHECK(!node_->backward, "bind_value is for leaves, not op results");
  ATTEND_CHECK(storage.shape() == node_->value.shape(),
               "bind_value needs storage of shape " << shape_to_string(node_->value.shape())
                                                    << ", got "
                                                    << shape_to_string(storage.shape()));
  if (storage.data() != node_->value.data()) storage.copy_from(node_->value);
  replace_storage(node_->value, std::move(storage));
}

void Var::backward() {
  ATTEND_CHECK(node_ && node_->value.numel() == 1,
               "backward() without a seed needs a scalar, got shape "
                   << (node_ ? shape_to_string(node_->value.shape()) : std::string("undefined")));
  backward(Tensor(node_->value.shape(), 1.0f));
}

void Var::backward(const Tensor& seed) {
  ATTEND_CHECK(node_, "backward() of an undefined Var");
  ATTEND_CHECK(node_->requires_grad, "backward() through a result that requires no gradient");
  ATTEND_CHECK(seed.shape() == node_->value.shape(),
               "seed of shape " << shape_to_string(seed.shape()) << " for a value of shape "
                                << shape_to_string(node_->value.shape()));

  // Post-order depth-first walk from the root: every node appears after all its inputs.
  // `order` owns its nodes: releasing a closure below must not free a node still to run.
  std::vector<std::shared_ptr<detail::VarNode>> order;
  std::unordered_set<detail::VarNode*> visited;
  std::vector<std::pair<std::shared_ptr<detail::VarNode>, std::size_t>> stack{{node_, 0}};
  visited.insert(node_.get());
  while (!stack.empty()) {
    auto& [node, next] = stack.back();
    if (next < node->inputs.size()) {
      std::shared_ptr<detail::VarNode> input = node->inputs[next++];
      if (input->requires_grad && visited.insert(input.get()).second) stack.push_back({input, 0});
    } else {
      order.push_back(node);
      stack.pop_back();
    }
  }

  accumulate_grad(seed);
  // Reverse post-order: a node runs once every consumer has added its gradient. Each node's
  // closure and inputs are released after it runs, so the graph frees itself as it goes.
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    detail::VarNode* node = it->get();
    if (!node->backward) continue;  // a leaf keeps its gradient
    if (node->has_grad) node->backward(node->value, node->grad);
    node->backward = nullptr;
    node->inputs.clear();
    node->grad = Tensor();
    node->has_grad = false;
  }
}

Var Var::detach() const { return Var(value(), false); }

Var Var::from_op(Tensor value, std::vector<Var> inputs, BackwardFn fn) {
  Var out(std::move(value), false);
  if (!grad_enabled()) return out;
  bool any = false;
  for (const Var& in : inputs) any = any || in.requires_grad();
  if (!any) return out;
  out.node_->requires_grad = true;
  for (const Var& in : inputs) {
    if (in.requires_grad()) out.node_->inputs.push_back(in.node_);
  }
  out.node_->backward = std::move(fn);
  return out;
}

}  // namespace attend
