#include "alignment_readers.hpp"
#include "attend/core/error.hpp"

namespace attend::bio::detail {

// FASTA, A2M and A3M differ only in what the builder already does (dropping lower-case
// insertions and '.') and in A3M's '#' header lines, so one reader serves all three.
Alignment read_fasta(const std::string& path, bool skip_hash_lines) {
  io::LineReader reader(path);
  AlignmentBuilder builder(reader);
  std::string line;
  bool in_record = false;
  std::size_t row = 0;
  while (reader.next(line)) {
    if (line.empty()) continue;
    if (skip_hash_lines && line[0] == '#') continue;
    if (line[0] == '>') {
      const auto fields = io::split_whitespace(line.substr(1));
      if (fields.empty()) reader.fail("empty sequence name after '>'");
      row = builder.add_row(fields[0]);
      in_record = true;
      continue;
    }
    if (!in_record) reader.fail("sequence data before the first '>' header");
    // Trailing spaces are tolerated; an inner space is reported as an unknown character.
    const std::size_t end = line.find_last_not_of(" \t");
    if (end == std::string::npos) continue;
    builder.append(row, std::string_view(line).substr(0, end + 1));
  }
  return builder.finish();
}

}  // namespace attend::bio::detail
