// At-most-once tools across the boundary: tool_spec::at_most_once and at_most_once_options from
// their dict forms, and the Python resolver as the engine's at_most_once::resolver.
// Durations cross as seconds (as in the JSON forms of the options). Callers hold the GIL.
#pragma once

#include <pybind11/pybind11.h>

#include "mcpcxx/json.hpp"
#include "mcpcxx/primitives.hpp"
#include "mcpcxx/server.hpp"

namespace mcpcxx::py_bind {

namespace py = pybind11;

/// tool_spec::at_most_once from {"window": seconds, "key_argument": str, "status_check": {"tool":
/// str, "arguments": [str]} | None} and `resolver`, the Python callable
/// resolver(call_id, first_called_at_ms, reason, arguments, ctx) -> {"verdict": "unknown" |
/// "not_applied" | "applied", "result": CallToolResult dict (with "applied")}; None: no resolver.
/// ValueError names a key it does not know or a value of the wrong type.
at_most_once at_most_once_from(const json& spec, py::object resolver);

}  // namespace mcpcxx::py_bind
