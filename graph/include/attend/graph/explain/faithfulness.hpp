#pragma once
/// Faithfulness of a set of explanations to the model they explain: each target's
/// prediction is recomputed on its computation graph with hard masks built from the scores,
/// and fidelity+/- with the characterization score (fidelity.hpp) and ERASER's
/// comprehensiveness and sufficiency (eraser_aopc.hpp) are averaged over the targets.
///   edges:    an explained edge is removed by a hard edge mask of 0 on its message
///             (GraphContext::with_edge_mask, as PyG's explain mode masks edges); edges of the
///             computation graph that are not explained (they reach no layer of the target)
///             keep 1
///   features: a feature column is removed by zeroing it on every node of the computation
///             graph
/// "Only the explanation" keeps the top-k items and removes the others of its kind; "without
/// the explanation" removes the top-k. Nodes with no item of a kind are left out of its mean.

#include <cstdint>
#include <string>
#include <vector>

#include "attend/graph/explain/explanation_file.hpp"
#include "attend/graph/explain/fidelity.hpp"
#include "attend/graph/node_classifier.hpp"
#include "attend/graph/node_training.hpp"

namespace attend::graph {

struct FaithfulnessResult {
  std::string kind;            ///< "edges" or "features"
  int64_t targets = 0;         ///< explanations scored
  int64_t top_k = 0;           ///< size of the hard explanation for fidelity
  Fidelity fidelity;
  double characterization = 0.0;
  double comprehensiveness = 0.0;  ///< AOPC of p(explained class), top k % removed
  double sufficiency = 0.0;        ///< AOPC of p(explained class), only the top k % kept
};

/// One result per kind of score the set holds. Throws attend::InputError when an explanation
/// does not fit `data` (a node or edge the dataset does not have, another feature count).
std::vector<FaithfulnessResult> evaluate_faithfulness(NodeClassifier& model, const PreparedNodeData& data,
                                                      const ExplanationSet& set, int64_t top_k);

}  // namespace attend::graph
