#include "attend/graph/layers/relation_projection.hpp"

#include "attend/core/init.hpp"
#include "attend/core/ops/matmul.hpp"
#include "attend/core/ops/shape.hpp"

namespace attend::graph {

std::vector<Tensor> RelationWeights::initial(int64_t in, int64_t width, int64_t relations, int64_t bases,
                                             Rng& rng) {
  // Fans as PyG's glorot on a [R, in, width] weight: in + width per relation.
  if (bases == 0) return {init::glorot_uniform({in, relations * width}, in, width, rng)};
  Tensor basis = init::glorot_uniform({in, bases * width}, in, width, rng);
  return {std::move(basis), init::glorot_uniform({relations, bases}, relations, bases, rng)};
}

Var RelationWeights::project_all(const NodeFeatures& x) const {
  const int64_t n = x.rows();
  if (bases == 0) return ops::reshape(project(x, weight), {n, relations, width});  // [N, R, width]
  Var xv = ops::reshape(project(x, basis), {n, bases, width});                      // [N, B, width]
  Var mixed = ops::matmul(ops::permute(xv, {0, 2, 1}), ops::permute(comp, {1, 0}));  // [N, width, R]
  return ops::permute(mixed, {0, 2, 1});                                             // [N, R, width]
}

}  // namespace attend::graph
