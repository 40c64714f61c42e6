// Shared pieces of the _core extension: per-area bind functions and a GIL-safe object holder.
#pragma once

#include <memory>

#include <pybind11/pybind11.h>

#include "mcpcxx/server.hpp"

namespace mcpcxx::py_bind {

namespace py = pybind11;

/// Registers SchemaError, compose_tool_error_message, is_reserved_code and the error names.
void bind_errors(py::module_& m);
/// Registers RequestContext.
void bind_context(py::module_& m);
/// Registers Server (its registration methods) and Session.
void bind_server(py::module_& m);
/// Registers serve_stdio, serve_http, HttpEndpoint and HttpExchange.
void bind_transports(py::module_& m);

/// Owns the engine; destroys it without the GIL so worker threads finishing a Python call can
/// still take the GIL while the pool joins.
struct server_handle {
  std::unique_ptr<server> srv;
  server_handle() = default;
  server_handle(const server_handle&) = delete;
  server_handle& operator=(const server_handle&) = delete;
  ~server_handle();
};

/// True while the interpreter can still run Python code (not finalizing).
bool python_alive() noexcept;

/// A shared reference to a Python object that may be copied, moved and destroyed on any thread:
/// the last owner takes the GIL to drop the reference (or leaks it when the interpreter is gone).
class held_object {
 public:
  held_object() = default;
  /// Takes a new reference to `obj`; the caller holds the GIL.
  explicit held_object(py::object obj);
  /// The object; only with the GIL held.
  const py::object& get() const noexcept { return *ptr_; }
  explicit operator bool() const noexcept { return ptr_ != nullptr; }

 private:
  std::shared_ptr<py::object> ptr_;
};

}  // namespace mcpcxx::py_bind
