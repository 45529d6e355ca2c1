#include "attend/core/recompute.hpp"

namespace attend {

Var recompute(const RecomputeFn& f, const std::vector<Var>& inputs, const std::vector<Var>& parameters) {
  bool any = false;
  for (const Var& v : inputs) any = any || v.requires_grad();
  for (const Var& v : parameters) any = any || v.requires_grad();
  if (!grad_enabled() || !any) return f(inputs);
  Tensor out;
  {
    NoGradGuard no_grad;
    out = f(inputs).value();
  }
  std::vector<Var> recorded = inputs;  // the graph edges: inputs, then parameters
  recorded.insert(recorded.end(), parameters.begin(), parameters.end());
  const std::size_t n_inputs = inputs.size();
  return Var::from_op(std::move(out), recorded, [f, inputs, n_inputs](const Tensor&, const Tensor& gy) {
    std::vector<Var> leaves;
    for (const Var& v : inputs) leaves.emplace_back(v.value(), v.requires_grad());  // copies
    Var again = f(leaves);
    again.backward(gy);
    for (std::size_t i = 0; i < n_inputs; ++i) {
      if (inputs[i].requires_grad() && leaves[i].has_grad()) inputs[i].accumulate_grad(leaves[i].grad());
    }
  });
}

}  // namespace attend
