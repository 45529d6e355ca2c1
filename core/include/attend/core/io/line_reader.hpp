#pragma once
/// LineReader: reads a text file line by line, gzip-compressed or not (detected from the
/// file's magic bytes), and knows the current line number so every parse error can name the
/// file and the line.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace attend::io {

class LineReader {
 public:
  /// Opens `path`; throws attend::InputError when it cannot be read.
  explicit LineReader(const std::string& path);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  /// The next line without its end-of-line characters (`\n`, `\r\n`); false at the end. A line
  /// with a NUL byte throws attend::InputError (file, line, column): no text format has one.
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
