#pragma once
/// Maps the residues of a structure onto the positions of a query sequence by a global
/// alignment of the two sequences, so that contacts can be read in query numbering.

#include <cstdint>
#include <string>
#include <vector>

namespace attend::bio {

/// Where each query position sits in the structure.
struct StructureMapping {
  /// Structure residue index for each query position, -1 when the position is not covered
  /// (a query gap, a residue absent from the structure), [L].
  std::vector<int64_t> residue;
  /// Query positions aligned to a structure residue, and how many of them are identical.
  int64_t aligned = 0;
  int64_t identical = 0;
  /// Residues of the structure (aligned or not).
  int64_t structure_residues = 0;
  /// Aligned query positions whose residue has coordinates (a C-alpha or a C-beta); set by
  /// contacts_from_pdb, 0 otherwise.
  int64_t with_coordinates = 0;
};

/// Needleman-Wunsch global alignment of `structure` (one-letter, e.g. PdbChain::sequence)
/// onto `query` (gaps `-` allowed: those positions are never mapped). Scores: identical
/// letters +2, different letters -1, a gap -1 per residue; gaps at either end are free, so
/// a structure covering part of the query (or the reverse) costs nothing extra. Ties in the
/// traceback prefer, in order: aligning the two residues, skipping a query residue,
/// skipping a structure residue. Aligned pairs are mapped even when the letters differ.
StructureMapping map_structure_to_query(const std::string& query, const std::string& structure);

}  // namespace attend::bio
