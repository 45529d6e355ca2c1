#pragma once
/// Per-relation projections evaluated only where they are used: the (node, relation) slots of
/// a relational graph layer (R-GCN, RGAT). With R relations, computing x W_r for every node
/// and relation costs N * R rows while a graph touches at most one slot per edge end.

#include <cstdint>
#include <memory>
#include <vector>

#include "attend/core/autodiff.hpp"
#include "attend/core/sparse_matrix.hpp"

namespace attend::ops {

/// A set of (node, relation) slots, sorted by node then relation, without duplicates.
struct RelationSlots {
  int64_t num_nodes = 0, num_relations = 0;
  std::vector<int64_t> node, relation;  ///< [S] the slot's node and relation
  std::vector<int64_t> node_indptr;     ///< [N + 1] slots of node i: node_indptr[i] .. [i + 1]
  std::vector<int64_t> relation_indptr; ///< [R + 1] ranges of `by_relation`
  std::vector<int64_t> by_relation;     ///< [S] slot ids grouped by relation, increasing in each

  /// The distinct pairs among (nodes[k], relations[k]); both must be in range.
  static RelationSlots from_pairs(int64_t num_nodes, int64_t num_relations,
                                  const std::vector<int64_t>& nodes,
                                  const std::vector<int64_t>& relations);
  int64_t size() const { return static_cast<int64_t>(node.size()); }
  /// The id of slot (node, relation), or -1 when the set does not hold it (binary search).
  int64_t find(int64_t node, int64_t relation) const;
};

/// out[s] = x[node[s]] W_{relation[s]} for every slot s: x [N, F] dense, w [F, R * C] (column
/// block r is W_r) -> [S, C]. Forward parallel over fixed blocks of slots; backward dx over
/// fixed blocks of nodes (each node's slots in order), dw over relations (each relation owns
/// its column block and sums its slots in order): bit-identical for any thread count.
Var slot_matmul(const Var& x, const Var& w, std::shared_ptr<const RelationSlots> slots);

/// The same for a constant sparse x [N, F] (bag-of-words rows, the identity of featureless
/// nodes, where a slot's projection is a row lookup of W_r). Only w gets a gradient.
Var slot_matmul(std::shared_ptr<const SparseMatrix> x, const Var& w,
                std::shared_ptr<const RelationSlots> slots);

/// Basis decomposition evaluated per slot (Schlichtkrull et al. 2018, Eq. 3, with the bases
/// applied first): out[s] = sum_b comp[relation[s], b] h[node[s], block b] for h [N, B * C]
/// (column block b is x V_b) and comp [R, B] -> [S, C]. Costs S * B * C, against
/// F * R * B * C for building every W_r; on featureless nodes h is the basis itself.
/// Forward parallel over fixed blocks of slots; backward dh over fixed blocks of nodes (each
/// node's slots in order), dcomp over fixed chunks of each relation's slots (summed in double,
/// in order, per relation): bit-identical for any thread count.
Var slot_basis_combine(const Var& h, const Var& comp, std::shared_ptr<const RelationSlots> slots);

}  // namespace attend::ops
