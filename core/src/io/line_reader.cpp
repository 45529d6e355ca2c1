#include "attend/core/io/line_reader.hpp"

#include <zlib.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>

#include "attend/core/error.hpp"

namespace attend::io {

// zlib's gzread reads plain files unchanged, so one code path serves both.
struct LineReader::Impl {
  gzFile file = nullptr;
  std::string buffer;
  std::size_t pos = 0;
  bool eof = false;

  bool fill() {
    if (eof) return false;
    char chunk[1 << 16];
    const int n = gzread(file, chunk, sizeof(chunk));
    if (n < 0) return false;
    if (n == 0) {
      eof = true;
      return false;
    }
    buffer.erase(0, pos);
    pos = 0;
    buffer.append(chunk, static_cast<std::size_t>(n));
    return true;
  }
};

LineReader::LineReader(const std::string& path) : impl_(std::make_unique<Impl>()), path_(path) {
  impl_->file = gzopen(path.c_str(), "rb");
  if (impl_->file == nullptr) {
    throw InputError(path, 0, std::string("cannot open file: ") + std::strerror(errno));
  }
  gzbuffer(impl_->file, 1 << 17);
}

LineReader::~LineReader() {
  if (impl_ && impl_->file) gzclose(impl_->file);
}

bool LineReader::next(std::string& line) {
  for (;;) {
    const std::size_t nl = impl_->buffer.find('\n', impl_->pos);
    if (nl != std::string::npos) {
      line.assign(impl_->buffer, impl_->pos, nl - impl_->pos);
      impl_->pos = nl + 1;
      break;
    }
    if (!impl_->fill()) {
      int err = 0;
      const char* message = gzerror(impl_->file, &err);
      if (err != Z_OK && err != Z_BUF_ERROR) {
        throw InputError(path_, line_number_ + 1, std::string("read error: ") + message);
      }
      if (impl_->pos >= impl_->buffer.size()) return false;
      line.assign(impl_->buffer, impl_->pos, std::string::npos);  // last line, no newline
      impl_->pos = impl_->buffer.size();
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

void LineReader::fail(const std::string& what) const { throw InputError(path_, line_number_, what); }

int64_t LineReader::parse_int(const std::string& token, const char* what) const {
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc() || end != token.data() + token.size() || token.empty()) {
    fail(std::string("expected ") + what + " (an integer), got '" + token + "'");
  }
  return value;
}

float LineReader::parse_float(const std::string& token, const char* what) const {
  float value = 0.0f;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc() || end != token.data() + token.size() || token.empty() ||
      !std::isfinite(value)) {
    fail(std::string("expected ") + what + " (a finite number), got '" + token + "'");
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
