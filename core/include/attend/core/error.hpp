#pragma once
/// Errors thrown by attend.
///
/// `Error` is a programming or internal error (a violated precondition); its message names
/// the condition, the function, the file and the line, as Faiss does. `InputError` is a
/// problem with a user's file or flag; its message names the file and the line when there
/// is one, and what was expected. The `attend` command prints either as one line.

#include <cstddef>
#include <sstream>
#include <stdexcept>
#include <string>

namespace attend {

/// A violated precondition inside attend or in a caller's use of the API.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Malformed user input: a file, a line in it (0 when not applicable) and what was wrong.
class InputError : public std::runtime_error {
 public:
  InputError(const std::string& file, std::size_t line, const std::string& what);
  explicit InputError(const std::string& what);

  const std::string& file() const { return file_; }
  std::size_t line() const { return line_; }

 private:
  std::string file_;
  std::size_t line_ = 0;
};

namespace detail {
[[noreturn]] void throw_check_failure(const char* condition, const std::string& message,
                                      const char* function, const char* file, int line);
}  // namespace detail

}  // namespace attend

/// Throw attend::Error with the condition, a streamed message and the location when `cond`
/// is false. Usage: `ATTEND_CHECK(a.rank() == 2, "expected a matrix, got " << a.rank());`
#define ATTEND_CHECK(cond, msg)                                                         \
  do {                                                                                  \
    if (!(cond)) {                                                                      \
      std::ostringstream attend_check_stream_;                                          \
      attend_check_stream_ << msg;                                                      \
      ::attend::detail::throw_check_failure(#cond, attend_check_stream_.str(), __func__, \
                                            __FILE__, __LINE__);                        \
    }                                                                                   \
  } while (false)
