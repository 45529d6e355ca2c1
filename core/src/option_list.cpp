#include "attend/core/option_list.hpp"

#include <charconv>
#include <cmath>

namespace attend {

namespace {

/// The shortest text that reads back to `v` ("0.5", "1", "2147483647").
std::string number_text(double v) {
  char text[32];
  return std::string(text, std::to_chars(text, text + sizeof text, v).ptr);
}

/// A Markdown table cell: `|` escaped.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

bool OptionRange::contains(double value) const {
  if (!std::isfinite(value)) return false;  // no option takes an infinite or NaN value
  if (lo && (lo_open ? !(value > *lo) : !(value >= *lo))) return false;
  if (hi && (hi_open ? !(value < *hi) : !(value <= *hi))) return false;
  return true;
}

std::string OptionRange::to_string() const {
  if (!lo && !hi) return "any";
  if (lo && hi) {
    return std::string(lo_open ? "(" : "[") + number_text(*lo) + ", " + number_text(*hi) + (hi_open ? ")" : "]");
  }
  if (lo) return std::string(lo_open ? "> " : ">= ") + number_text(*lo);
  return std::string(hi_open ? "< " : "<= ") + number_text(*hi);
}

std::string option_table_markdown(const std::vector<OptionDoc>& docs) {
  std::string out = "| option | type | default | allowed | meaning |\n|---|---|---|---|---|\n";
  for (const OptionDoc& d : docs) {
    out += "| `" + d.key + "` | " + d.type + " | " + cell(d.default_value) + " | " + cell(d.allowed) + " | " +
           cell(d.meaning) + " |\n";
  }
  return out;
}

}  // namespace attend
