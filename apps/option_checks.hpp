#pragma once
/// Validators for command-line options: a bad value stops the command before any work, with
/// one line naming the option (numbers: their bound, NaN refused; CLI11 2.1's PositiveNumber and
/// NonNegativeNumber print the largest double in full instead). Output paths are checked
/// against each other and the inputs by CommandFiles (command_files.hpp).

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>

#include "attend/core/error.hpp"
#include "attend/core/option_list.hpp"
#include "attend/core/quoted_input.hpp"

namespace attend::cli {

/// Accepts a finite number in `range` (the range an option list declares: OptionList::range);
/// NaN, infinities and text that is not wholly a number are refused. Every numeric option goes
/// through it (or through `seed`): CLI11's own Range lets NaN through, since NaN compares false
/// both ways.
inline CLI::Validator in_range(const OptionRange& range) {
  std::ostringstream bound;
  if (range.lo) bound << (range.lo_open ? "above " : "at least ") << *range.lo;
  if (range.lo && range.hi) bound << " and ";
  if (range.hi) bound << (range.hi_open ? "below " : "at most ") << *range.hi;
  const std::string what = bound.str();
  return CLI::Validator(
      [range, what](std::string& text) -> std::string {
        double x = 0.0;
        std::size_t used = 0;
        try {
          x = std::stod(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        const std::string expected = what.empty() ? "a number" : "a number " + what;
        if (used == 0 || used != text.size() || !std::isfinite(x)) return "expected " + expected + ", got " + quoted_input(text);
        if (!range.contains(x)) return "must be " + what + ", got " + quoted_input(text);
        return std::string();
      },
      "");  // no help text: CLI11 would print it inside the type, "INT:...=64"
}

/// Accepts a finite number in [`min`, `max`] (`min` excluded when `strict`).
inline CLI::Validator within(double min, double max, bool strict = false) {
  return in_range(OptionRange{min, max, strict, false});
}

/// Accepts a finite number >= `min` (> `min` when `strict`); for integer and real options
/// alike (CLI11 then converts the text to the option's type).
inline CLI::Validator at_least(double min, bool strict = false) {
  return in_range(OptionRange{min, std::nullopt, strict, false});
}

/// What `list` says of a config holding one option: "" when it reads it, else its refusal from
/// "must be" on ("must be >= 0, got '-1'"; the whole message when it words it otherwise).
template <class T>
std::string refusal_of(const OptionList<T>& list, const Json& config) {
  try {
    list.from_json(config);
  } catch (const InputError& e) {
    const std::string what = e.what();
    const std::size_t at = what.find("must be");
    return at == std::string::npos ? what : what.substr(at);
  }
  return std::string();
}

/// Accepts a finite number that `list` reads as option `key` (its range, declared once there):
/// the command line restates no bound.
template <class T>
CLI::Validator in_range_of(const OptionList<T>& list, std::string key) {
  const CLI::Validator number = in_range(OptionRange::any());
  return CLI::Validator(
      [&list, key, number](std::string& text) -> std::string {
        std::string checked = text;
        if (std::string error = number(checked); !error.empty()) return error;
        const double x = std::stod(text);
        const bool whole = x == std::floor(x) && std::abs(x) < 1e15;  // an integer option reads a JSON integer
        return refusal_of(list, Json{{key, whole ? Json(static_cast<int64_t>(x)) : Json(x)}});
      },
      "");
}

/// Accepts one of the names `list` declares for option `key` (OptionList::choice).
template <class T>
CLI::Validator one_of(const OptionList<T>& list, std::string key) {
  return CLI::Validator([&list, key](std::string& text) { return refusal_of(list, Json{{key, text}}); }, "");
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

}  // namespace attend::cli
