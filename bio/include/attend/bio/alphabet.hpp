#pragma once
/// The residue alphabet of attend: 21 states, the 20 amino acids in the order
/// `ARNDCQEGHILKMFPSTWYV` (codes 0..19, the order of CCMpred and of the three-letter names
/// ALA ARG ASN ...) and the gap (code 20).
///
/// Non-standard letters follow CCMpred, which maps every unknown residue to the gap state:
/// `X` (unknown), `B` (D or N), `Z` (E or Q), `J` (I or L), `U` (selenocysteine) and `O`
/// (pyrrolysine) all become the gap code. Any other character is not a residue
/// (`residue_code` answers `kInvalidCode`) and readers reject it with file and line.

#include <cstdint>
#include <string>
#include <string_view>

namespace attend::bio {

/// Number of amino-acid states.
inline constexpr int kNumAminoAcids = 20;
/// Number of states including the gap.
inline constexpr int kNumStates = 21;
/// Code of the gap state.
inline constexpr uint8_t kGapCode = 20;
/// Answer of `residue_code` for a character that is not part of the alphabet.
inline constexpr uint8_t kInvalidCode = 255;
/// The amino acids in code order: `kAminoAcids[code]` is the letter of `code` < 20.
inline constexpr std::string_view kAminoAcids = "ARNDCQEGHILKMFPSTWYV";

/// Code of an upper-case residue letter or `-`: 0..19 for the amino acids, `kGapCode` for
/// `-` and for X/B/Z/J/U/O, `kInvalidCode` for anything else (lower case included).
uint8_t residue_code(char c);
/// The letter of a code (`-` for the gap).
char residue_letter(uint8_t code);
/// Codes to letters.
std::string decode_residues(const uint8_t* codes, int64_t length);
/// One-letter code of a PDB residue name (`ALA` -> `A`; `MSE` -> `M`); `X` when unknown.
char residue_from_three_letter(std::string_view name);

}  // namespace attend::bio
