#pragma once
// Python objects (dicts, lists, numbers, strings) to attend::Json and back, through the json
// module, so that any nesting converts: model dicts, option dicts, configs.

#include <string>

#include <pybind11/pybind11.h>

#include "attend/core/json_reader.hpp"
#include "attend/core/options_json.hpp"

namespace attend::python {

/// `value` as JSON; what JSON cannot hold is an attend::InputError naming `what`.
inline Json to_json(const pybind11::object& value, const std::string& what) {
  const std::string text = pybind11::module_::import("json").attr("dumps")(value).cast<std::string>();
  return parse_json(text, what);
}

inline pybind11::object to_python(const Json& value) {
  return pybind11::module_::import("json").attr("loads")(value.dump());
}

}  // namespace attend::python
