#pragma once
/// Reader for knowledge-graph triples in TSV, `head<TAB>relation<TAB>tail` per line (the
/// layout of WN18RR and FB15k-237).

#include <string>
#include <vector>

#include "attend/graph/node_dataset.hpp"

namespace attend::graph {

/// Read one or more TSV files into one typed, directed, featureless graph (head -> tail,
/// edge_type = relation id). Entities and relations are numbered in order of first appearance
/// across the files, in the order given. No labels (num_classes 0).
NodeDataset load_tsv_triples(const std::vector<std::string>& paths);

}  // namespace attend::graph
