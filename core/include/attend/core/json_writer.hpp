#pragma once
/// Writing JSON results to a file, atomically: the `--json FILE` outputs of the command line
/// and the summaries library drivers write.

#include <string>

#include <nlohmann/json.hpp>

namespace attend {

/// Write `value` (indented, trailing newline) to `path` through core's AtomicOutput: readers
/// see the old file or the whole new one, a failure leaves no partial file, and inside an
/// OutputTransaction the file appears with the command's other outputs. Throws
/// attend::InputError naming `path` when it cannot be written.
void write_json_file(const std::string& path, const nlohmann::json& value);

}  // namespace attend
