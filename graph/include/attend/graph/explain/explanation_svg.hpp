#pragma once
/// A picture of one node's explanation (SVG): the explained edges of its computation graph
/// drawn as undirected lines (a pair's score is the larger of its two directions), width and
/// colour by score (red positive, blue negative, grey near zero, scaled by the largest |score|
/// of the node), ground-truth edges outlined in black when a truth is given, the explained node
/// filled orange. Layout: Boost.Graph's Fruchterman-Reingold force-directed layout (Fruchterman &
/// Reingold 1991; 100 iterations of linear cooling) from a circle; its only random draws come
/// from a generator with a fixed seed, so the same explanation gives the same file.
/// (Kamada-Kawai was tried first: on a hub's computation graph of hundreds of nodes it ran
/// for minutes without converging.)

#include <string>

#include "attend/graph/explain/node_explanation.hpp"
#include "attend/graph/motif_ground_truth.hpp"
#include "attend/graph/node_dataset.hpp"

namespace attend::graph {

/// The SVG document.
std::string explanation_svg(const NodeExplanation& x, const NodeDataset& dataset, const MotifGroundTruth* truth);

/// Write it to `path` atomically (part of an open OutputTransaction).
void save_explanation_svg(const std::string& path, const NodeExplanation& x, const NodeDataset& dataset,
                          const MotifGroundTruth* truth);

}  // namespace attend::graph
