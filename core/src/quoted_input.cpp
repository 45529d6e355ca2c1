#include "attend/core/quoted_input.hpp"

namespace attend {

namespace {

// How many leading bytes of `text` to show: all, or at most `max_chars` without cutting a
// UTF-8 character (whose continuation bytes are 10xxxxxx).
std::size_t shown_bytes(std::string_view text, std::size_t max_chars) {
  if (text.size() <= max_chars) return text.size();
  std::size_t keep = max_chars;
  while (keep > 0 && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80) --keep;
  return keep;
}

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    out += (byte < 0x20 || byte == 0x7f) ? '?' : c;
  }
  return out;
}

std::string size_note(std::string_view text) { return " (" + std::to_string(text.size()) + " bytes)"; }

}  // namespace

std::string shortened(std::string_view text, std::size_t max_chars) {
  const std::size_t keep = shown_bytes(text, max_chars);
  if (keep == text.size()) return printable(text);
  return printable(text.substr(0, keep)) + "..." + size_note(text);
}

std::string quoted_input(std::string_view text) {
  const std::size_t keep = shown_bytes(text, kMaxQuotedChars);
  if (keep == text.size()) return "'" + printable(text) + "'";
  return "'" + printable(text.substr(0, keep)) + "...'" + size_note(text);
}

std::string one_line(const std::string& text) {
  std::string out;
  bool pending_break = false;
  for (char c : text) {
    if (c == '\n' || c == '\r') {
      pending_break = true;
      continue;
    }
    if (pending_break) {
      if (c == ' ' || c == '\t') continue;
      while (!out.empty() && out.back() == ' ') out.pop_back();
      if (!out.empty()) out += "; ";
      pending_break = false;
    }
    out += c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

}  // namespace attend
