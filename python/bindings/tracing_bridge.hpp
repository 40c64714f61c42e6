// A Python tracer behind the engine's tracing hook (mcpcxx/tracing.hpp): start(info) returns the
// Python span object (or None: untraced), end(span, info) ends it. mcpcxx.observability._otel
// supplies both from opentelemetry-api. Thread-safety: the engine calls start/end from its threads;
// both take the GIL (and do nothing once the interpreter no longer runs Python code).
#pragma once

#include <pybind11/pybind11.h>

#include "mcpcxx/server.hpp"

namespace mcpcxx::py_bind {

namespace py = pybind11;

/// Attaches start/end as the tracer of `s`; both None detaches.
void set_python_tracer(server& s, py::object start, py::object end);
/// The Python span object of the request behind `ctx` (None when untraced). GIL held.
py::object python_span_of(const request_context& ctx);

}  // namespace mcpcxx::py_bind
