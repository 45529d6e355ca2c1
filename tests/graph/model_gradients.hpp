#pragma once
/// One forward + backward of a node model at a given thread count, for the layer tests'
/// "1 thread equals N threads, bit for bit" checks.

#include <vector>

#include "attend/core/parallel.hpp"
#include "attend/core/tensor.hpp"
#include "attend/graph/graph_context.hpp"
#include "attend/graph/node_classifier.hpp"

namespace attend::testing {

/// The output of `model` on `x` (forward seed 42) and every parameter's gradient after a
/// backward from `seed_grad`, computed on `threads` threads (the thread count is restored).
inline std::vector<Tensor> model_output_and_gradients(const Json& model, const Registry& registry,
                                                      const graph::GraphContext& g, const graph::NodeFeatures& x,
                                                      const Tensor& seed_grad, int threads) {
  const int before = num_threads();
  set_num_threads(threads);
  graph::NodeClassifier classifier(model, registry);
  Var y = classifier.forward(x, g, 42);
  y.backward(seed_grad);
  std::vector<Tensor> out{y.value()};
  for (const auto& [name, p] : classifier.named_parameters()) out.push_back(p.grad());
  set_num_threads(before);
  return out;
}

}  // namespace attend::testing
