#pragma once
/// Machine-readable results of the `attend` subcommands (`--json FILE`).

#include <string>

#include <nlohmann/json.hpp>

namespace attend::cli {

/// Write `value` (indented, trailing newline) to `path` atomically: the text goes to a
/// temporary file next to `path`, which is renamed over `path` only once it is complete, so
/// readers see the old file or the whole new one and a failure leaves no partial file.
/// Throws attend::InputError naming `path` when it cannot be written.
void write_json_file(const std::string& path, const nlohmann::json& value);

}  // namespace attend::cli
