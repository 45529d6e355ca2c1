#pragma once
/// quoted_input: user text (a token, a line, a name, a flag's value) as it appears inside an
/// error message. Every message that echoes what a user gave goes through it (or, for text
/// that is not ours to quote such as a file name or CLI11's message, through `shortened`), so
/// a 200 MB line or a 5 MB layer name costs one short line on stderr, not the whole text again.

#include <cstddef>
#include <string>
#include <string_view>

namespace attend {

/// The most characters of user text an error message quotes.
inline constexpr std::size_t kMaxQuotedChars = 80;

/// `text` with control characters (line breaks, tabs, NUL) shown as '?', so that a message
/// stays one line; longer than `max_chars`, it is cut there (never inside a UTF-8 character)
/// and "... (N bytes)" follows.
std::string shortened(std::string_view text, std::size_t max_chars);

/// `text` in single quotes: 'abc'. Longer than kMaxQuotedChars, it is cut there and the full
/// size follows: 'abcd...' (5000000 bytes). Control characters show as '?'.
std::string quoted_input(std::string_view text);

/// `text` on one line: every run of line breaks (and the spaces around them) becomes "; ".
/// Error messages reach users as one line (the command line's stderr, Python's ValueError).
std::string one_line(const std::string& text);

}  // namespace attend
