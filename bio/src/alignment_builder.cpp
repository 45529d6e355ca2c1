#include <cstdio>

#include "alignment_readers.hpp"
#include "attend/bio/alphabet.hpp"
#include "attend/core/error.hpp"
#include "attend/core/quoted_input.hpp"

namespace attend::bio::detail {

namespace {
// 'c' for a printable character, \xNN otherwise.
std::string quoted_character(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string("'") + c + "'";
  char hex[8];
  std::snprintf(hex, sizeof(hex), "\\x%02X", u);
  return hex;
}
}  // namespace

std::size_t AlignmentBuilder::add_row(std::string name) {
  names_.push_back(std::move(name));
  first_lines_.push_back(reader_.line_number());
  rows_.emplace_back();
  return rows_.size() - 1;
}

void AlignmentBuilder::append(std::size_t row, std::string_view text) {
  std::vector<uint8_t>& codes = rows_[row];
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if ((c >= 'a' && c <= 'z') || c == '.') continue;  // insertion: not an aligned column
    const uint8_t code = residue_code(c);
    if (code == kInvalidCode) {
      reader_.fail("unknown residue character " + quoted_character(c) + " at position " +
                   std::to_string(i + 1) + " of the line (expected one of " +
                   std::string(kAminoAcids) + "XBZJUO-, or lower case / '.' for insertions)");
    }
    codes.push_back(code);
  }
}

Alignment AlignmentBuilder::finish() const {
  if (rows_.empty()) throw InputError(reader_.path(), 0, "no sequences (empty alignment)");
  const std::size_t length = rows_[0].size();
  if (length == 0) {
    throw InputError(reader_.path(), first_lines_[0],
                     "sequence " + quoted_input(names_[0]) + " has no aligned columns");
  }
  Alignment a;
  a.names = names_;
  a.length = static_cast<int64_t>(length);
  a.codes.reserve(rows_.size() * length);
  for (std::size_t n = 0; n < rows_.size(); ++n) {
    if (rows_[n].size() != length) {
      throw InputError(reader_.path(), first_lines_[n],
                       "sequence " + quoted_input(names_[n]) + " has " + std::to_string(rows_[n].size()) +
                           " aligned columns, the first sequence has " + std::to_string(length));
    }
    a.codes.insert(a.codes.end(), rows_[n].begin(), rows_[n].end());
  }
  return a;
}

}  // namespace attend::bio::detail
