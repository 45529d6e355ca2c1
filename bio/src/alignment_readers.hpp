#pragma once
// Internal to attend::bio: the per-format readers behind read_alignment and the builder they
// share, which removes insertions, encodes residues and checks the row lengths.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "attend/bio/alignment.hpp"
#include "attend/core/io/line_reader.hpp"

namespace attend::bio::detail {

/// Collects rows while a file is read; every error names the reader's file and a line.
class AlignmentBuilder {
 public:
  explicit AlignmentBuilder(const io::LineReader& reader) : reader_(reader) {}

  /// Start a new row named `name` whose record begins at the reader's current line; returns
  /// its index.
  std::size_t add_row(std::string name);
  /// Append the text of the reader's current line to row `row`: lower-case letters and `.`
  /// are dropped, everything else must be a residue (alphabet.hpp) or the line fails.
  void append(std::size_t row, std::string_view text);
  std::size_t num_rows() const { return rows_.size(); }
  /// Check that every row has the length of row 0 (a longer or shorter row fails at the
  /// line where its record began) and return the alignment; an empty one fails.
  Alignment finish() const;

 private:
  const io::LineReader& reader_;
  std::vector<std::string> names_;
  std::vector<std::size_t> first_lines_;
  std::vector<std::vector<uint8_t>> rows_;
};

/// FASTA / A2M, and A3M when `skip_hash_lines` (lines starting with `#` are skipped).
Alignment read_fasta(const std::string& path, bool skip_hash_lines);
/// PSICOV `.aln`: one sequence per line.
Alignment read_psicov(const std::string& path);
/// Stockholm (first alignment of the file).
Alignment read_stockholm(const std::string& path);

}  // namespace attend::bio::detail
