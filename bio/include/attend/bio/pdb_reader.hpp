#pragma once
/// Reader for PDB-format coordinate files (plain or gzip), enough to derive residue
/// contacts: one chain of the first model, one representative point per residue.
///
/// - Records: `ATOM`, and `HETATM` for selenomethionine (`MSE`, read as MET); other
///   `HETATM` records (ligands, water) are ignored. Reading stops at the first `ENDMDL`.
/// - Alternate locations: per residue, atoms with a blank altLoc and atoms of the first
///   altLoc met in that residue (normally `A`) are kept; the first copy of an atom name wins.
/// - Residues are told apart by (resSeq, iCode) in file order, so insertion codes (`52A`)
///   give residues of their own.
/// - Representative point: C-beta; C-alpha for glycine and for residues without C-beta.
///   A residue with neither keeps its place in the sequence but has no position.
/// Malformed records throw attend::InputError with file and line.

#include <cstdint>
#include <string>
#include <vector>

namespace attend::bio {

/// A point in Angstrom.
struct Point3 {
  double x = 0.0, y = 0.0, z = 0.0;
};

/// Euclidean distance.
double distance(const Point3& a, const Point3& b);

/// One residue of a chain.
struct PdbResidue {
  /// Residue name as in the file (`MSE` stays `MSE`).
  std::string name;
  /// One-letter code (`MSE` -> `M`, unknown names -> `X`).
  char letter = 'X';
  /// resSeq and iCode (`' '` when none).
  int64_t number = 0;
  char insertion_code = ' ';
  bool has_ca = false;
  bool has_cb = false;
  Point3 ca;
  Point3 cb;

  /// True when the residue has a C-alpha or a C-beta.
  bool has_position() const { return has_ca || has_cb; }
  /// C-beta; C-alpha for glycine or when C-beta is missing (requires has_position()).
  Point3 position() const;
};

/// The residues of one chain, in file order.
struct PdbChain {
  /// Chain identifier (`' '` for a blank chain id).
  char id = ' ';
  std::vector<PdbResidue> residues;

  /// The one-letter sequence of `residues`.
  std::string sequence() const;
};

/// Read chain `chain` (one character; empty: the chain of the first ATOM/MSE record) from
/// the first model of `path`. Throws attend::InputError when the chain is absent.
PdbChain read_pdb_chain(const std::string& path, const std::string& chain = "");

}  // namespace attend::bio
