#pragma once
/// Validators for command-line options: a bad value stops the command before any work, with
/// one line naming the option (numbers: their bound, NaN refused; CLI11 2.1's PositiveNumber and
/// NonNegativeNumber print the largest double in full instead). Output paths are checked
/// against each other and the inputs by CommandFiles (command_files.hpp).

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>

#include "attend/core/quoted_input.hpp"

namespace attend::cli {

/// Accepts a finite number in [`min`, `max`] (`min` excluded when `strict`); NaN, infinities
/// and text that is not wholly a number are refused. Every numeric option goes through it (or
/// through `seed`): CLI11's own Range lets NaN through, since NaN compares false both ways.
inline CLI::Validator within(double min, double max, bool strict = false) {
  std::ostringstream bound;
  bound << (strict ? "above " : "at least ") << min;
  if (std::isfinite(max)) bound << " and at most " << max;
  const std::string what = bound.str();
  return CLI::Validator(
      [min, max, strict, what](std::string& text) -> std::string {
        double x = 0.0;
        std::size_t used = 0;
        try {
          x = std::stod(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == 0 || used != text.size() || !std::isfinite(x)) return "expected a number " + what + ", got " + quoted_input(text);
        if ((strict ? !(x > min) : !(x >= min)) || !(x <= max)) return "must be " + what + ", got " + quoted_input(text);
        return std::string();
      },
      "");  // no help text: CLI11 would print it inside the type, "INT:...=64"
}

/// Accepts a finite number >= `min` (> `min` when `strict`); for integer and real options
/// alike (CLI11 then converts the text to the option's type).
inline CLI::Validator at_least(double min, bool strict = false) {
  return within(min, std::numeric_limits<double>::infinity(), strict);
}

/// Accepts a random seed: a whole number from 0 to 2^64 - 1 in decimal digits. CLI11 reads
/// unsigned options with strtoull, which turns "-1" into 2^64 - 1 without a word.
inline CLI::Validator seed() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const bool digits = !text.empty() && text.size() <= 20 &&
                            std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (!digits || (text.size() == 20 && text > "18446744073709551615")) {
          return "expected a seed (a whole number from 0 to 18446744073709551615), got " + quoted_input(text);
        }
        return std::string();
      },
      "");
}

/// Accepts a neighbour fan-out: a whole number >= 1, or -1 for all neighbours.
inline CLI::Validator fanout() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const bool digits = !text.empty() && text.size() <= 18 &&
                            std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (text == "-1" || (digits && text.find_first_not_of('0') != std::string::npos)) return std::string();
        return "expected a fan-out (a whole number from 1, or -1 for all neighbours), got " + quoted_input(text);
      },
      "");
}

/// Accepts a finite number > 0.
inline CLI::Validator positive() { return at_least(0.0, true); }

}  // namespace attend::cli
