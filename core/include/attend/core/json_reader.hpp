#pragma once
/// Reading JSON that comes from outside: model files, `bench --options`, and the JSON strings
/// inside attend's HDF5 files (`/model`, `/optimizer/config`, `/trainer/state` of a
/// checkpoint, `/config` of a prediction, `/scores_config` of an alignment). Every such text
/// goes through here, so each limit below holds everywhere attend parses JSON.
///
/// Limits, each an attend::InputError naming the source:
/// - nesting deeper than kMaxJsonDepth (the deepest JSON attend writes, a checkpoint's trainer
///   state, is 5 levels; 200,000 levels would overflow the stack when the value is printed or
///   compared, which nlohmann-json does recursively);
/// - a number beyond a double (`1e999`: nlohmann-json throws its out_of_range error, which
///   was an internal error);
/// - a file longer than kMaxJsonFileBytes (`/dev/zero` as a model file).

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace attend {

using Json = nlohmann::json;

/// The deepest nesting of arrays and objects accepted.
inline constexpr int kMaxJsonDepth = 100;
/// The largest JSON file accepted, 16 MiB (a model file is a few KB).
inline constexpr std::size_t kMaxJsonFileBytes = std::size_t{16} << 20;

/// Parse `text`; errors are InputError(`file`, 0, "`object`: not valid JSON: ..."), or
/// without the object when `object` is empty. `file` is a path or a flag ("--options"),
/// `object` what inside it holds the text ("dataset '/model'").
Json parse_json(std::string_view text, const std::string& file, const std::string& object = "");

/// Read and parse the JSON file at `path` (a missing, unreadable or too large file, a
/// directory, is an InputError naming it).
Json read_json_file(const std::string& path);

}  // namespace attend
