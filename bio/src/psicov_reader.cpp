#include "alignment_readers.hpp"

namespace attend::bio::detail {

Alignment read_psicov(const std::string& path) {
  io::LineReader reader(path);
  AlignmentBuilder builder(reader);
  std::string line;
  while (reader.next(line)) {
    const std::size_t end = line.find_last_not_of(" \t");
    if (end == std::string::npos) continue;  // blank line
    const std::size_t row = builder.add_row(std::to_string(reader.line_number()));
    builder.append(row, std::string_view(line).substr(0, end + 1));
  }
  return builder.finish();
}

}  // namespace attend::bio::detail
