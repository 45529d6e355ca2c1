#include "attend/graph/ntriples.hpp"

#include <cctype>

#include "attend/core/error.hpp"
#include "attend/core/io/line_reader.hpp"

namespace attend::graph {

namespace {
// A cursor over one line that reports errors at its position.
class TermScanner {
 public:
  TermScanner(const std::string& text, const std::string& file, std::size_t line)
      : text_(text), file_(file), line_(line) {}

  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  }
  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(file_, line_, what + " at column " + std::to_string(pos_ + 1));
  }

  std::string iri() {
    const std::size_t start = pos_;
    ++pos_;  // '<'
    while (!at_end() && text_[pos_] != '>') {
      if (text_[pos_] == ' ') fail("space inside an IRI");
      ++pos_;
    }
    if (at_end()) fail("unterminated IRI (expected '>')");
    ++pos_;
    return text_.substr(start, pos_ - start);
  }

  std::string blank_node() {
    const std::size_t start = pos_;
    if (text_.compare(pos_, 2, "_:") != 0) fail("expected a blank node '_:label'");
    pos_ += 2;
    while (!at_end() && text_[pos_] != ' ' && text_[pos_] != '\t') ++pos_;
    if (pos_ == start + 2) fail("empty blank node label");
    return text_.substr(start, pos_ - start);
  }

  std::string literal() {
    const std::size_t start = pos_;
    ++pos_;  // opening quote
    while (!at_end() && text_[pos_] != '"') {
      if (text_[pos_] == '\\') {
        ++pos_;
        if (at_end()) break;
        const char e = text_[pos_];
        const std::string valid = "tbnrf\"'\\uU";
        if (valid.find(e) == std::string::npos) fail(std::string("unknown escape '\\") + e + "' in a literal");
      }
      ++pos_;
    }
    if (at_end()) fail("unterminated literal (expected '\"')");
    ++pos_;
    if (peek() == '@') {
      ++pos_;
      const std::size_t tag = pos_;
      while (!at_end() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '-')) ++pos_;
      if (pos_ == tag) fail("empty language tag");
    } else if (text_.compare(pos_, 2, "^^") == 0) {
      pos_ += 2;
      if (peek() != '<') fail("expected a datatype IRI after '^^'");
      iri();
    }
    return text_.substr(start, pos_ - start);
  }

  // The final '.', then only spaces or a comment.
  void end_of_triple() {
    skip_space();
    if (peek() != '.') fail("expected '.' to end the triple");
    ++pos_;
    skip_space();
    if (!at_end() && peek() != '#') fail("unexpected text after '.'");
  }

  std::string term(const char* role, bool allow_blank, bool allow_literal) {
    skip_space();
    const char c = peek();
    if (c == '<') return iri();
    if (c == '_' && allow_blank) return blank_node();
    if (c == '"' && allow_literal) return literal();
    fail(std::string("expected ") + role);
  }

 private:
  const std::string& text_;
  const std::string& file_;
  std::size_t line_;
  std::size_t pos_ = 0;
};
}  // namespace

bool parse_ntriples_line(const std::string& text, Triple& out, const std::string& file,
                         std::size_t line) {
  TermScanner scan(text, file, line);
  scan.skip_space();
  if (scan.at_end() || scan.peek() == '#') return false;
  out.subject = scan.term("a subject (an IRI or a blank node)", true, false);
  out.predicate = scan.term("a predicate (an IRI)", false, false);
  out.object = scan.term("an object (an IRI, a blank node or a literal)", true, true);
  scan.end_of_triple();
  return true;
}

void read_ntriples(const std::string& path, const std::function<void(const Triple&)>& fn) {
  io::LineReader reader(path);
  std::string text;
  Triple t;
  while (reader.next(text)) {
    if (parse_ntriples_line(text, t, path, reader.line_number())) fn(t);
  }
}

std::string iri_of(const std::string& term) {
  if (term.size() >= 2 && term.front() == '<' && term.back() == '>') return term.substr(1, term.size() - 2);
  return term;
}

}  // namespace attend::graph
