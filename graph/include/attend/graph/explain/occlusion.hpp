#pragma once
/// Occlusion (Zeiler & Fergus 2014; for graph networks the "occlusion" / "deletion" family of
/// Faber et al. 2021 and Yuan et al. 2022's taxonomy): the score of an input is how much the
/// explained quantity f (explained_quantity.hpp) of one target drops when that input alone
/// is taken away,
///   edge e:     f(m = 1) - f(m = 1 with m_e = 0)          (soft edge mask, with_edge_mask)
///   feature k:  f(x) - f(x with column k zero at every node of the computation graph).
/// The edge's mask entry 0 removes its message the way every mask method here does (PyTorch
/// Geometric's explain semantics, docs/architecture.md "Edge masks"): for a layer that sums
/// its messages (gcn with normalize false: the benchmark presets) that is the graph without
/// the edge; for a softmax or degree-normalised layer (gat, normalised gcn) the other
/// messages keep their weights. DEVIATION: Zeiler & Fergus slide a grey patch over an image;
/// here one input at a time is zeroed, the graph analogue without a patch size to choose.
///
/// With `symmetric`, edge j -> i is occluded together with every edge joining i and j in
/// either direction (same relation), and all of them get that one score: the occlusion of an
/// undirected edge.
///
/// Occluded inputs run in batches, each one forward of a TargetForward pass
/// (target_forward.hpp) over disjoint copies of the computation graph, copy k holding the
/// k-th occluded mask (or features); nothing is recorded for a gradient. f(input) is
/// TargetForwards::input_logits's. The batches are sized from the work, not the thread
/// count, and each copy's logits are those of a row-parallel pass, so the scores are the
/// same bits on any number of threads.

#include <cstdint>
#include <vector>

#include "attend/graph/explain/target_forward.hpp"

namespace attend::graph {

/// Scores [E_c] of the edges `edges` (local plain edge ids of the computation graph of
/// `passes`) for the explained class `cls`. `batch_values` bounds copies x (n + E) per pass.
std::vector<float> occlusion_edges(TargetForwards& passes, int64_t cls, const std::vector<int64_t>& edges,
                                   bool symmetric, int64_t batch_values = int64_t{1} << 20);

/// Scores [F] of the input feature columns for the explained class `cls`. `batch_values`
/// bounds copies x n x F per pass.
std::vector<float> occlusion_features(TargetForwards& passes, int64_t cls, int64_t batch_values = int64_t{1} << 22);

}  // namespace attend::graph
