// Conversion between Python objects and mcpcxx::json. Callers must hold the GIL.
#pragma once

#include <cstddef>

#include <pybind11/pybind11.h>

#include "mcpcxx/json.hpp"

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

}  // namespace mcpcxx::py_bind
