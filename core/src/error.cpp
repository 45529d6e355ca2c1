#include "attend/core/error.hpp"

#include "attend/core/quoted_input.hpp"

namespace attend {

namespace {
// No path that can be opened is longer than PATH_MAX (4096): a longer "file" is user text
// (a 5 MB --data argument) and is shown short.
constexpr std::size_t kMaxShownPath = 4096;

// The backstop for a message site that forgot quoted_input: no input error prints more than
// this (the longest real messages, a path of 4096 and a sentence, stay under it).
constexpr std::size_t kMaxMessage = 6000;

std::string bounded(const std::string& message) {
  return message.size() > kMaxMessage ? shortened(message, kMaxMessage) : message;
}

std::string located(const std::string& file, std::size_t line, const std::string& what) {
  std::string out = file.size() > kMaxShownPath ? shortened(file, kMaxQuotedChars) : file;
  if (line > 0) out += ":" + std::to_string(line);
  return bounded(out + ": " + what);
}
}  // namespace

InputError::InputError(const std::string& file, std::size_t line, const std::string& what)
    : std::runtime_error(located(file, line, what)), file_(file), line_(line) {}

InputError::InputError(const std::string& what) : std::runtime_error(bounded(what)) {}

namespace detail {
void throw_check_failure(const char* condition, const std::string& message,
                         const char* function, const char* file, int line) {
  std::ostringstream out;
  out << message << " (check '" << condition << "' failed in " << function << " at " << file
      << ":" << line << ")";
  throw Error(out.str());
}
}  // namespace detail

}  // namespace attend
