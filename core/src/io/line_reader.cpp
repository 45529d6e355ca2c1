#include "attend/core/io/line_reader.hpp"

#include <zlib.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>

#include "attend/core/error.hpp"
#include "attend/core/io/input_path.hpp"
#include "attend/core/io/read_progress.hpp"
#include "attend/core/quoted_input.hpp"

namespace attend::io {

// zlib's gzread reads plain files unchanged, so one code path serves both.
struct LineReader::Impl {
  gzFile file = nullptr;
  std::string buffer;
  std::size_t pos = 0;      // where the next line starts in `buffer`
  std::size_t scanned = 0;  // buffer[pos, scanned) is known to hold no '\n'
  bool eof = false;
  std::unique_ptr<FileReadProgress> progress;  // MiB of the stored file read (see read_progress.hpp)

  // Appends the next chunk of the file; false at the end or on a read error (gzerror says).
  bool fill() {
    if (eof) return false;
    char chunk[1 << 16];
    const int n = gzread(file, chunk, sizeof(chunk));
    if (n < 0) return false;
    if (n == 0) {
      eof = true;
      progress->finish();
      return false;
    }
    progress->read_to(static_cast<int64_t>(gzoffset(file)));
    buffer.erase(0, pos);
    scanned -= pos;
    pos = 0;
    buffer.append(chunk, static_cast<std::size_t>(n));
    return true;
  }
};

LineReader::LineReader(const std::string& path) : impl_(std::make_unique<Impl>()), path_(path) {
  require_input_file(path);
  impl_->file = gzopen(path.c_str(), "rb");
  if (impl_->file == nullptr) {
    throw InputError(path, 0, std::string("cannot open file: ") + std::strerror(errno));
  }
  gzbuffer(impl_->file, 1 << 17);
  impl_->progress = std::make_unique<FileReadProgress>(path);
}

LineReader::~LineReader() {
  if (impl_ && impl_->file) gzclose(impl_->file);
}

bool LineReader::next(std::string& line) {
  Impl& in = *impl_;
  const auto too_long = [this] {
    fail_at(line_number_ + 1, "a line longer than " + std::to_string(kMaxLineBytes >> 20) +
                                  " MiB, the most attend reads (a binary file, or no line breaks?)");
  };
  for (;;) {
    // Only the bytes not yet looked at are searched: a long line costs its length, not its square.
    const std::size_t nl = in.buffer.find('\n', in.scanned);
    if (nl != std::string::npos) {
      if (nl - in.pos > kMaxLineBytes) too_long();
      line.assign(in.buffer, in.pos, nl - in.pos);
      in.pos = in.scanned = nl + 1;
      break;
    }
    in.scanned = in.buffer.size();
    if (in.scanned - in.pos > kMaxLineBytes) too_long();
    if (!in.fill()) {
      int err = 0;
      const char* message = gzerror(in.file, &err);
      // zlib reports gzip data that stops before its end marker as Z_BUF_ERROR ("unexpected
      // end of file"): what was decoded so far is not the whole file.
      if (err == Z_BUF_ERROR) fail_at(line_number_ + 1, "the gzip data ends early (a truncated .gz file?)");
      if (err != Z_OK) fail_at(line_number_ + 1, std::string("read error: ") + message);
      if (in.pos >= in.buffer.size()) return false;
      line.assign(in.buffer, in.pos, std::string::npos);  // last line, no newline
      in.pos = in.scanned = in.buffer.size();
      break;
    }
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  ++line_number_;
  // No text format attend reads has NUL bytes; a line with one is a binary or damaged file
  // (and NUL could not be stored in the HDF5 name lists).
  const std::size_t nul = line.find('\0');
  if (nul != std::string::npos) fail("a NUL byte at column " + std::to_string(nul + 1) + " (binary data in a text file?)");
  return true;
}

void LineReader::fail(const std::string& what) const { fail_at(line_number_, what); }

void LineReader::fail_at(std::size_t line, const std::string& what) const { throw InputError(path_, line, what); }

int64_t LineReader::parse_int(const std::string& token, const char* what) const {
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc() || end != token.data() + token.size() || token.empty()) {
    fail(std::string("expected ") + what + " (an integer), got " + quoted_input(token));
  }
  return value;
}

float LineReader::parse_float(const std::string& token, const char* what) const {
  float value = 0.0f;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc() || end != token.data() + token.size() || token.empty() ||
      !std::isfinite(value)) {
    fail(std::string("expected ") + what + " (a finite number), got " + quoted_input(token));
  }
  return value;
}

std::vector<std::string> split_whitespace(const std::string& line) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (j > i) out.emplace_back(line, i, j - i);
    i = j;
  }
  return out;
}

std::vector<std::string> split_on(const std::string& line, char separator) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = line.find(separator, start);
    if (end == std::string::npos) {
      out.emplace_back(line, start);
      return out;
    }
    out.emplace_back(line, start, end - start);
    start = end + 1;
  }
}

}  // namespace attend::io
