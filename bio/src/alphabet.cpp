#include "attend/bio/alphabet.hpp"

#include <array>

namespace attend::bio {

namespace {
constexpr std::array<uint8_t, 256> make_code_table() {
  std::array<uint8_t, 256> table{};
  for (auto& entry : table) entry = kInvalidCode;
  for (std::size_t i = 0; i < kAminoAcids.size(); ++i) {
    table[static_cast<unsigned char>(kAminoAcids[i])] = static_cast<uint8_t>(i);
  }
  for (char c : std::string_view("-XBZJUO")) table[static_cast<unsigned char>(c)] = kGapCode;
  return table;
}
constexpr std::array<uint8_t, 256> kCodeTable = make_code_table();

// Three-letter names in code order, then the modified residues attend accepts.
constexpr std::array<std::string_view, 20> kThreeLetter = {
    "ALA", "ARG", "ASN", "ASP", "CYS", "GLN", "GLU", "GLY", "HIS", "ILE",
    "LEU", "LYS", "MET", "PHE", "PRO", "SER", "THR", "TRP", "TYR", "VAL"};
}  // namespace

uint8_t residue_code(char c) { return kCodeTable[static_cast<unsigned char>(c)]; }

char residue_letter(uint8_t code) {
  return code < kNumAminoAcids ? kAminoAcids[code] : '-';
}

std::string decode_residues(const uint8_t* codes, int64_t length) {
  std::string out(static_cast<std::size_t>(length), '-');
  for (int64_t i = 0; i < length; ++i) out[static_cast<std::size_t>(i)] = residue_letter(codes[i]);
  return out;
}

char residue_from_three_letter(std::string_view name) {
  for (std::size_t i = 0; i < kThreeLetter.size(); ++i) {
    if (kThreeLetter[i] == name) return kAminoAcids[i];
  }
  if (name == "MSE") return 'M';
  return 'X';
}

}  // namespace attend::bio
