// Conversion between Python objects and mcpcxx::json, and the pybind11 casters built on it: json
// crosses as plain Python data, and every model type (specs, results, options, counters) crosses
// as the dict of its JSON form (cpp/include/mcpcxx/{primitives,model}.hpp). Callers hold the GIL.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <type_traits>

#include <pybind11/pybind11.h>

#include "mcpcxx/json.hpp"
#include "mcpcxx/model.hpp"
#include "mcpcxx/primitives.hpp"

namespace mcpcxx::py_bind {

namespace py = pybind11;

/// Deepest nesting accepted in either direction; deeper (or cyclic) values raise ValueError.
inline constexpr std::size_t k_max_json_depth = 512;

/// Converts a JSON-compatible Python value (None, bool, int, float, str, list, tuple, dict with
/// str keys) to JSON. Raises TypeError for other types or non-str keys, OverflowError for an int
/// outside [-2^63, 2^64), ValueError for NaN/infinity or nesting beyond k_max_json_depth.
json to_json(py::handle value);

/// Converts JSON to Python: objects become dict, arrays list, integers int, floats float.
py::object to_python(const json& value);

/// The types that cross the boundary as the dict of their JSON form.
template <class T>
inline constexpr bool is_model_v =
    std::is_same_v<T, tool_spec> || std::is_same_v<T, tool_result> ||
    std::is_same_v<T, resource_spec> || std::is_same_v<T, resource_template_spec> ||
    std::is_same_v<T, resource_contents> || std::is_same_v<T, prompt_spec> ||
    std::is_same_v<T, prompt_result> || std::is_same_v<T, completion_request> ||
    std::is_same_v<T, completion_result> || std::is_same_v<T, server_options> ||
    std::is_same_v<T, server_metrics> || std::is_same_v<T, stdio_options> ||
    std::is_same_v<T, http_options> || std::is_same_v<T, http_stats>;

}  // namespace mcpcxx::py_bind

namespace pybind11::detail {

/// mcpcxx::json <-> plain Python data.
template <>
struct type_caster<mcpcxx::json> {
  PYBIND11_TYPE_CASTER(mcpcxx::json, const_name("Any"));
  bool load(handle src, bool /*convert*/) {
    value = mcpcxx::py_bind::to_json(src);
    return true;
  }
  static handle cast(const mcpcxx::json& j, return_value_policy /*policy*/, handle /*parent*/) {
    return mcpcxx::py_bind::to_python(j).release();
  }
};

/// A model type <-> the dict of its JSON form; a malformed dict raises TypeError naming the key.
template <class T>
struct type_caster<T, std::enable_if_t<mcpcxx::py_bind::is_model_v<T>>> {
  PYBIND11_TYPE_CASTER(T, const_name("dict[str, Any]"));
  bool load(handle src, bool /*convert*/) {
    const mcpcxx::json j = mcpcxx::py_bind::to_json(src);
    try {
      j.get_to(value);
    } catch (const std::invalid_argument& e) {
      throw type_error(e.what());
    }
    return true;
  }
  static handle cast(const T& v, return_value_policy /*policy*/, handle /*parent*/) {
    return mcpcxx::py_bind::to_python(mcpcxx::json(v)).release();
  }
};

}  // namespace pybind11::detail
