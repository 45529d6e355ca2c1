#pragma once
/// Where true contacts come from: a structure (PDB file, or per-position points) or a
/// contacts TSV file.
///
/// Contacts TSV (the format of the protein sets in data/proteins/): lines starting with `#`
/// are comments, `#L <n>` among them gives L (otherwise L is the largest index); data lines
/// are `i j dist contact` (tab or space separated), 1-based positions i != j, `dist` in
/// Angstrom or `NA`, `contact` 1 or 0. Only the listed pairs are evaluable.

#include <optional>
#include <string>
#include <vector>

#include "attend/bio/contact_map.hpp"
#include "attend/bio/pdb_reader.hpp"
#include "attend/bio/structure_mapping.hpp"

namespace attend::bio {

/// Distance below which two residues are in contact (Angstrom, strict `<`).
inline constexpr double kContactCutoff = 8.0;

/// Truth from one point per position ([L]; nullopt: no structure): every pair of positions
/// with points is evaluable, in contact when their distance is below `cutoff`.
ContactMap contacts_from_points(const std::vector<std::optional<Point3>>& points,
                                double cutoff = kContactCutoff);

/// Truth from chain `chain` of a PDB file (pdb_reader.hpp; empty: first chain), mapped onto
/// `query` (letters, gaps allowed) with map_structure_to_query; each position takes the
/// residue's C-beta (C-alpha for glycine). Unmapped positions are not evaluable. Throws
/// attend::InputError when no aligned residue is identical to the query's (the wrong
/// structure) and when fewer than two aligned residues have a C-alpha or C-beta (no pair
/// could be evaluated: a table of zeros would follow); `mapping`, when given, receives the
/// alignment (to judge a weak match or missing coordinates).
ContactMap contacts_from_pdb(const std::string& pdb_path, const std::string& query,
                             const std::string& chain = "", double cutoff = kContactCutoff,
                             StructureMapping* mapping = nullptr);

/// Read a contacts TSV; malformed lines throw attend::InputError with file and line.
ContactMap read_contacts_tsv(const std::string& path);

/// Where a user's truth comes from: a chain of a PDB file or a contacts TSV (at most one;
/// neither: no truth).
struct ContactTruthSource {
  std::string pdb, chain, tsv;
};

/// The truth for the L positions of a prediction or alignment (`scored`, named in
/// messages) whose query is `query` (letters; empty when the file records none, and then a
/// PDB chain must have L residues). Nothing when `source` names no file. A structure that
/// matches the query at fewer than half of the residues they share, or whose aligned
/// residues mostly lack a C-alpha or C-beta atom, is kept with a line in `warnings`.
/// Throws attend::InputError when the truth does not cover L positions.
std::optional<ContactMap> load_contact_truth(const ContactTruthSource& source, const std::string& query, int64_t L,
                                             const std::string& scored, std::vector<std::string>& warnings);

}  // namespace attend::bio
