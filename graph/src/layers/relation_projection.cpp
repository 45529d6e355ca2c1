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

Var RelationWeights::full_weight() const {
  if (bases == 0) return weight;
  Var v = ops::permute(ops::reshape(basis, {in, bases, width}), {0, 2, 1});  // [in, width, B]
  Var mixed = ops::matmul(v, ops::permute(comp, {1, 0}));                    // [in, width, R]
  return ops::reshape(ops::permute(mixed, {0, 2, 1}), {in, relations * width});  // [in, R * width]
}

bool RelationWeights::bases_first(const NodeFeatures& x, const ops::RelationSlots& slots) const {
  if (bases == 0) return false;
  int64_t nnz = 0, slot_nnz = 0;  // non-zeros of x, and of the rows the slots read
  if (x.is_sparse()) {
    const auto& indptr = x.sparse->indptr();
    nnz = x.sparse->nnz();
    for (int64_t node : slots.node) slot_nnz += indptr[node + 1] - indptr[node];
  } else {
    nnz = x.rows() * x.cols();
    slot_nnz = slots.size() * x.cols();
  }
  return (nnz + slots.size()) * bases < in * relations * bases + slot_nnz;
}

Var RelationWeights::project_slots(const NodeFeatures& x,
                                   std::shared_ptr<const ops::RelationSlots> slots) const {
  if (bases_first(x, *slots)) {
    return ops::slot_basis_combine(project(x, basis), comp, std::move(slots));  // [S, width]
  }
  const Var w = full_weight();  // [in, R * width]
  return x.is_sparse() ? ops::slot_matmul(x.sparse, w, std::move(slots))
                       : ops::slot_matmul(x.dense, w, std::move(slots));  // [S, width]
}

}  // namespace attend::graph
