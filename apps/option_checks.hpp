#pragma once
/// Validators for command-line options: a bad value stops the command before any work, with
/// one line naming the option (numbers: their bound; CLI11 2.1's PositiveNumber and
/// NonNegativeNumber print the largest double in full instead). Output paths are checked
/// against each other and the inputs by CommandFiles (command_files.hpp).

#include <cmath>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>

namespace attend::cli {

/// Accepts a finite number >= `min` (> `min` when `strict`); for integer and real options
/// alike (CLI11 then converts the text to the option's type).
inline CLI::Validator at_least(double min, bool strict = false) {
  std::ostringstream bound;
  bound << (strict ? "above " : "at least ") << min;
  const std::string what = bound.str();
  return CLI::Validator(
      [min, strict, what](std::string& text) -> std::string {
        double x = 0.0;
        std::size_t used = 0;
        try {
          x = std::stod(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == 0 || used != text.size() || !std::isfinite(x)) return "expected a number " + what + ", got '" + text + "'";
        if (strict ? !(x > min) : !(x >= min)) return "must be " + what + ", got " + text;
        return std::string();
      },
      "");  // no help text: CLI11 would print it inside the type, "INT:...=64"
}

/// Accepts a finite number > 0.
inline CLI::Validator positive() { return at_least(0.0, true); }

}  // namespace attend::cli
