#pragma once
/// LineReader: reads a text file line by line, gzip-compressed or not (detected from the
/// file's magic bytes), and knows the current line number so every parse error can name the
/// file and the line. Reading is linear in the file's size (each byte is looked at once) and a
/// line is at most kMaxLineBytes long, so no input (/dev/zero, a gzip bomb of one endless
/// line) can make it hang or take the machine's memory.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace attend::io {

/// The longest line any reader accepts, 16 MiB: 16 times the longest line a format attend
/// reads can legitimately hold (a .mat row of 40000 scores is about 0.5 MB, a sequence of
/// 65535 columns with its A3M insertions about 1 MB; the shipped data's longest is 4.6 KB).
/// A longer line is a binary or damaged file, or one without line breaks.
inline constexpr std::size_t kMaxLineBytes = std::size_t{16} << 20;

class LineReader {
 public:
  /// Opens `path`; throws attend::InputError when it cannot be read.
  explicit LineReader(const std::string& path);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  /// The next line without its end-of-line characters (`\n`, `\r\n`); false at the end.
  /// Throws attend::InputError (file, line) for a line with a NUL byte (no text format has
  /// one; the column is named), a line longer than kMaxLineBytes, a read error, and gzip data
  /// that ends before its end-of-stream marker (a truncated .gz file is not read as complete).
  bool next(std::string& line);
  /// 1-based number of the line last returned by `next` (0 before the first).
  std::size_t line_number() const { return line_number_; }
  const std::string& path() const { return path_; }
  /// Throw attend::InputError at the current line: "<path>:<line>: <what>".
  [[noreturn]] void fail(const std::string& what) const;
  /// Parse a whole token as an integer / a finite float, or fail naming `what` was expected.
  int64_t parse_int(const std::string& token, const char* what) const;
  float parse_float(const std::string& token, const char* what) const;

 private:
  [[noreturn]] void fail_at(std::size_t line, const std::string& what) const;

  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string path_;
  std::size_t line_number_ = 0;
};

/// Split on runs of spaces and tabs (no empty fields).
std::vector<std::string> split_whitespace(const std::string& line);
/// Split on one character exactly (empty fields kept).
std::vector<std::string> split_on(const std::string& line, char separator);

}  // namespace attend::io
