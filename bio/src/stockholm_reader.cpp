#include <unordered_map>

#include "alignment_readers.hpp"
#include "attend/core/quoted_input.hpp"

namespace attend::bio::detail {

// Stockholm 1.0: the first block fixes the sequence names and their order; later blocks
// continue the same sequences. Within a block every sequence line has the same raw width.
Alignment read_stockholm(const std::string& path) {
  io::LineReader reader(path);
  AlignmentBuilder builder(reader);
  std::string line;
  bool header_seen = false;
  bool terminated = false;
  bool in_first_block = true;
  std::size_t block_width = 0;  // raw width of the current block; 0 before its first line
  std::unordered_map<std::string, std::size_t> row_of;
  while (reader.next(line)) {
    const auto fields = io::split_whitespace(line);
    if (fields.empty()) {  // a blank line ends a block
      if (builder.num_rows() > 0) in_first_block = false;
      block_width = 0;
      continue;
    }
    if (!header_seen) {
      if (line.rfind("# STOCKHOLM", 0) != 0) {
        reader.fail("expected the Stockholm header '# STOCKHOLM 1.0', got " + quoted_input(line));
      }
      header_seen = true;
      continue;
    }
    if (line.rfind("//", 0) == 0) {
      terminated = true;
      break;
    }
    if (line[0] == '#') continue;  // #=GF, #=GS, #=GC, #=GR and comments
    if (fields.size() != 2) {
      reader.fail("expected 'name sequence', got " + std::to_string(fields.size()) + " fields");
    }
    if (block_width == 0) {
      block_width = fields[1].size();
    } else if (fields[1].size() != block_width) {
      reader.fail("sequence " + quoted_input(fields[0]) + " has " + std::to_string(fields[1].size()) +
                  " characters in this block, the block's first line has " +
                  std::to_string(block_width));
    }
    auto it = row_of.find(fields[0]);
    if (it == row_of.end()) {
      if (!in_first_block) reader.fail("sequence " + quoted_input(fields[0]) + " is not in the first block");
      it = row_of.emplace(fields[0], builder.add_row(fields[0])).first;
    }
    builder.append(it->second, fields[1]);
  }
  if (!header_seen) reader.fail("empty file (expected the Stockholm header '# STOCKHOLM 1.0')");
  if (!terminated) reader.fail("missing '//' at the end of the Stockholm alignment (truncated file?)");
  return builder.finish();
}

}  // namespace attend::bio::detail
