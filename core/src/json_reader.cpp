#include "attend/core/json_reader.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "attend/core/error.hpp"
#include "attend/core/quoted_input.hpp"

namespace attend {

namespace {

// nlohmann-json's parse message without its "[json.exception.parse_error.101] " tag, and with
// the token it quotes ("last read: '...'") cut short: the token can be a whole 200 MB string.
std::string parse_reason(const Json::parse_error& error) {
  std::string reason = error.what();
  if (const std::size_t tag = reason.find("] "); reason.starts_with("[json.exception") && tag != std::string::npos) {
    reason.erase(0, tag + 2);
  }
  const std::string marker = "last read: '";
  const std::size_t start = reason.find(marker);
  if (start != std::string::npos && reason.back() == '\'') {
    const std::size_t token = start + marker.size();
    reason = reason.substr(0, start) + "last read: " + quoted_input(std::string_view(reason).substr(token, reason.size() - token - 1));
  }
  return reason;
}

}  // namespace

Json parse_json(std::string_view text, const std::string& file, const std::string& object) {
  const std::string where = object.empty() ? std::string() : object + ": ";
  const auto check = [&](int depth, Json::parse_event_t event, Json&) {
    if ((event == Json::parse_event_t::object_start || event == Json::parse_event_t::array_start) &&
        depth >= kMaxJsonDepth) {
      throw InputError(file, 0, where + "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels, the most attend reads");
    }
    return true;
  };
  try {
    return Json::parse(text.begin(), text.end(), check);
  } catch (const Json::parse_error& error) {
    throw InputError(file, 0, where + "not valid JSON: " + parse_reason(error));
  } catch (const Json::out_of_range&) {
    // nlohmann-json's lexer reports a number beyond a double (406 "number overflow") this
    // way, quoting the number in full: not quoted here.
    throw InputError(file, 0, where + "a JSON number too large for a double (such as 1e999)");
  }
}

Json read_json_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, std::string("cannot open file: ") + std::strerror(errno));
  std::string text;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof(chunk)) || in.gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxJsonFileBytes) {
      throw InputError(path, 0, "longer than " + std::to_string(kMaxJsonFileBytes >> 20) + " MiB, the largest JSON file attend reads");
    }
  }
  if (in.bad()) throw InputError(path, 0, "cannot read file (a folder?)");
  return parse_json(text, path);
}

}  // namespace attend
