#pragma once
/// A multiple sequence alignment encoded in the 21-state alphabet (alphabet.hpp), and the
/// reader for the four text formats attend accepts (plain or gzip-compressed):
///
/// - A3M (HHblits): FASTA records; lower-case letters and `.` are insertions relative to the
///   query and are removed; lines starting with `#` (the `#A3M#` header) are skipped.
/// - FASTA / A2M: `>name description` headers, sequence over any number of lines; lower-case
///   letters and `.` (A2M insert states) are removed, so plain aligned FASTA and A2M read alike.
/// - PSICOV `.aln`: one aligned sequence per line, no names; a row is named by its 1-based
///   line number ("1", "2", ...).
/// - Stockholm: `# STOCKHOLM 1.0` header, `name sequence` lines in one or more blocks (the
///   same names in each block), `#=GF/#=GS/#=GC/#=GR` and other `#` lines skipped, `//` ends
///   the alignment (required); lower-case letters and `.` (insert columns) are removed.
///
/// After removal every sequence must have the same number of columns L. Errors (unequal
/// lengths, unknown characters, empty files, missing `//`, ...) throw attend::InputError
/// naming the file and the line.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attend::bio {

/// The most columns an alignment may have: sequence weights count identities in uint16.
inline constexpr int64_t kMaxAlignmentColumns = 65535;

/// An alignment of N sequences over L columns, row 0 is the query.
struct Alignment {
  /// Sequence names, [N] (the first word of a header; the line number for PSICOV files).
  std::vector<std::string> names;
  /// Number of aligned columns L.
  int64_t length = 0;
  /// Residue codes (alphabet.hpp), [N, L] row-major.
  std::vector<uint8_t> codes;
  /// Row of the query sequence: always 0 for alignments made by `read_alignment` and kept
  /// there by the filters.
  int64_t query = 0;

  /// N.
  int64_t num_sequences() const { return static_cast<int64_t>(names.size()); }
  /// The L codes of row `n`.
  const uint8_t* row(int64_t n) const { return codes.data() + n * length; }
  /// Row `n` as letters (gaps as `-`).
  std::string sequence(int64_t n) const;
};

/// The text formats `read_alignment` reads.
enum class AlignmentFormat { kAuto, kA3m, kFasta, kPsicov, kStockholm };

/// Parse a format name: `auto`, `a3m`, `fasta`/`a2m`/`fa`, `aln`/`psicov`, `stockholm`/`sto`
/// (case-insensitive); throws attend::InputError listing the choices otherwise.
AlignmentFormat parse_alignment_format(std::string_view name);

/// The format of `path`: from its extension, ignoring a trailing `.gz` (`.a3m`; `.fasta`,
/// `.fa`, `.fas`, `.afa`, `.a2m`; `.aln`, `.psicov`; `.sto`, `.stk`, `.sth`,
/// `.stockholm`), otherwise from its first non-blank line (`# STOCKHOLM` -> Stockholm,
/// another `#` -> A3M, `>` -> FASTA, anything else -> PSICOV).
AlignmentFormat detect_alignment_format(const std::string& path);

/// Read an alignment. The query is the first sequence, or the first one named `query_name`
/// when that is not empty; it becomes row 0 and the other rows keep their file order.
Alignment read_alignment(const std::string& path, AlignmentFormat format = AlignmentFormat::kAuto,
                         const std::string& query_name = "");

/// An alignment from aligned rows given as text (row 0 the query, named "1", "2", ...), read
/// as A3M rows are: lower-case letters and `.` are insertions and dropped. An empty list, an
/// unknown character, rows of unequal length or more than kMaxAlignmentColumns columns are an
/// attend::InputError naming `source` and the row.
Alignment alignment_from_rows(const std::vector<std::string>& rows, const std::string& source);

}  // namespace attend::bio
