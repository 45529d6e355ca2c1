#pragma once
/// Per-relation projections with optional basis decomposition (Schlichtkrull et al., "Modeling
/// Relational Data with Graph Convolutional Networks", ESWC 2018, Eq. 3), shared by the
/// relational layers (rgcn, rgat).

#include <cstdint>
#include <memory>
#include <vector>

#include "attend/core/autodiff.hpp"
#include "attend/core/ops/slot_matmul.hpp"
#include "attend/core/random.hpp"
#include "attend/graph/node_features.hpp"

namespace attend::graph {

/// The parameters of R projections in -> width: either one weight [in, R * width] (column
/// block r is W_r) or, with B > 0 bases, basis [in, B * width] (block b is V_b) and
/// comp [R, B], W_r = sum_b comp[r, b] V_b.
struct RelationWeights {
  int64_t in = 0, width = 0, relations = 0, bases = 0;
  Var weight;  ///< [in, R * width] when bases == 0
  Var basis;   ///< [in, B * width] when bases > 0
  Var comp;    ///< [R, B] when bases > 0

  /// Glorot-initialised tensors for the shapes above, in the order weight | basis, comp.
  static std::vector<Tensor> initial(int64_t in, int64_t width, int64_t relations, int64_t bases, Rng& rng);

  /// W [in, R * width]: `weight` itself, or with bases W_r = sum_b comp[r, b] V_b, one
  /// product of cost in * width * B * R.
  Var full_weight() const;
  /// Whether project_slots takes the bases first for this input: with bases, when
  /// (nnz(x) + S) * B, the multiply-adds (in units of width) of x V_b for every node and then
  /// a mix of B rows per slot, is below in * R * B + sum over slots of nnz(x[node]), those of
  /// full_weight and then a row of x times W_r per slot. On featureless nodes (the sparse
  /// identity, nnz = in = N) it holds unless nearly all N * R pairs are slots; on narrow
  /// dense hidden features (N * F >> F * R) it fails.
  bool bases_first(const NodeFeatures& x, const ops::RelationSlots& slots) const;
  /// x[node] W_relation for every slot: [S, width], so the cost follows the slots the graph
  /// uses, not N * R. Either ops::slot_basis_combine(x V, comp) (when bases_first) or
  /// ops::slot_matmul(x, full_weight()); the two differ only in float summation order.
  Var project_slots(const NodeFeatures& x, std::shared_ptr<const ops::RelationSlots> slots) const;
};

}  // namespace attend::graph
