#pragma once
/// Explanation AUC on a synthetic benchmark: the ROC AUC (roc_auc.hpp) of edge scores
/// against the planted motifs (motif_ground_truth.hpp), the edges of all explained nodes pooled
/// into one curve, an edge positive when its undirected pair is an edge of any planted motif.
/// Two protocols decide which edges are scored and how:
///
///   explained-edges  every explained edge j -> i of each node's computation graph
///                    (computation_graph.hpp) with the score the method gave it; the two
///                    directions of an undirected edge are two items. attend's own protocol.
///   khop-undirected  the protocol of the authors' evaluation code of GNNExplainer (Ying et
///                    al., NeurIPS 2019: explainer/explain.py, explain_nodes_gnn_stats and
///                    make_pred_real) and of PGExplainer (Luo et al., NeurIPS 2020: the
///                    notebooks' acc() over Extractor.subgraph): for each explained node v,
///                    every undirected edge {a, b} of the graph whose two ends lie within
///                    `hops` edges of v (the subgraph induced by v's hops-neighbourhood, hops =
///                    the model's graph convolutions), once, scored score(a -> b) + score(b -> a)
///                    (their symmetrised mask); a direction the explanation does not hold
///                    (outside the computation graph) adds 0. Positives as above: every motif
///                    edge in the subgraph, as PGExplainer labels them (GNNExplainer's code
///                    labels only the explained node's own motif). Which nodes to explain is
///                    the caller's choice (the papers: each motif's anchor; docs/results.md).

#include <string>
#include <vector>

#include "attend/graph/explain/explanation_file.hpp"
#include "attend/graph/motif_ground_truth.hpp"
#include "attend/graph/node_dataset.hpp"

namespace attend::graph {

enum class MotifAucProtocol { kExplainedEdges, kKhopUndirected };

/// "explained-edges", "khop-undirected" (the enum's order).
std::vector<std::string> motif_auc_protocol_names();

/// One of motif_auc_protocol_names(); attend::InputError otherwise.
MotifAucProtocol parse_motif_auc_protocol(const std::string& name);

/// explained-edges. NaN when the pooled edges hold no positive or no negative.
double explained_edge_auc(const ExplanationSet& set, const MotifGroundTruth& truth);

/// khop-undirected over the edges of `graph` (read as undirected, self-loops and repeated
/// pairs ignored), hops >= 1. NaN when the pooled edges hold no positive or no negative.
double khop_undirected_auc(const ExplanationSet& set, const MotifGroundTruth& truth, const NodeDataset& graph, int hops);

/// The AUC under `protocol` (hops: khop-undirected's radius; explained-edges reads none).
double motif_edge_auc(const ExplanationSet& set, const MotifGroundTruth& truth, const NodeDataset& graph,
                      MotifAucProtocol protocol, int hops);

}  // namespace attend::graph
