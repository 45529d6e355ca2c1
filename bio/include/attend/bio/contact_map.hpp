#pragma once
/// ContactMap: the true residue-residue contacts of a protein in query numbering, with the
/// pairs that can be evaluated at all (both residues have structure).

#include <cstdint>
#include <vector>

namespace attend::bio {

/// The longest sequence a contact file may describe (positions, `#L`, an RR file's residue
/// numbers): a map is L x L, so a mistyped position would otherwise ask for terabytes. No
/// chain in the PDB comes near it.
inline constexpr int64_t kMaxContactMapLength = 40000;

/// Truth over L positions: for each pair, a distance (NaN when unknown) and a state.
class ContactMap {
 public:
  /// State of a pair that cannot be evaluated (no structure for one of its residues).
  static constexpr int8_t kNotEvaluable = -1;

  /// L positions, every pair not evaluable.
  explicit ContactMap(int64_t length = 0);

  int64_t length() const { return length_; }
  /// Set pair (i, j), i != j, and its mirror (j, i): a distance (NaN: unknown) and a flag.
  void set(int64_t i, int64_t j, float distance, bool contact);
  /// True when pair (i, j) has a state.
  bool evaluable(int64_t i, int64_t j) const { return state_[index(i, j)] != kNotEvaluable; }
  /// True when pair (i, j) is evaluable and in contact.
  bool contact(int64_t i, int64_t j) const { return state_[index(i, j)] == 1; }
  /// Distance of pair (i, j) in Angstrom, NaN when unknown.
  float distance(int64_t i, int64_t j) const { return distance_[index(i, j)]; }

 private:
  std::size_t index(int64_t i, int64_t j) const { return static_cast<std::size_t>(i * length_ + j); }

  int64_t length_ = 0;
  std::vector<float> distance_;  // [L, L]
  std::vector<int8_t> state_;    // [L, L]: kNotEvaluable, 0, 1
};

}  // namespace attend::bio
