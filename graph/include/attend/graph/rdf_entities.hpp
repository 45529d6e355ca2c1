#pragma once
/// Entity classification on an RDF graph, as in the R-GCN benchmark (Schlichtkrull et al.,
/// "Modeling Relational Data with Graph Convolutional Networks", ESWC 2018): every distinct
/// subject and object (literals included) is a node, every predicate a relation, and the
/// triples of the target relations are removed so the labels do not leak into the graph.

#include <string>
#include <vector>

#include "attend/graph/node_dataset.hpp"

namespace attend::graph {

struct RdfEntityFiles {
  std::string triples;   ///< N-Triples, plain or .gz
  std::string train;     ///< TSV with a header: an entity IRI column, `id`, a `label_*` column
  std::string test;      ///< same layout
  /// IRIs (without `<>`) of predicates whose triples are dropped (the target and its inverse).
  std::vector<std::string> removed_predicates;
};

/// Build a featureless, typed, directed NodeDataset (edges subject -> object, edge_type =
/// predicate id). Nodes and relations are numbered in order of first appearance; classes are
/// the sorted label values. `val` is empty (the benchmark has no validation split).
NodeDataset load_rdf_entities(const RdfEntityFiles& files);

/// The files of a folder laid out like data/graphs/aifb: one `*.nt` / `*.nt.gz`,
/// `trainingSet.tsv`, `testSet.tsv`. `removed_predicates` is left empty.
RdfEntityFiles rdf_folder_files(const std::string& dir);

}  // namespace attend::graph
