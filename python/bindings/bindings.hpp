// Shared pieces of the _core extension: per-area bind functions and a GIL-safe object holder.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>

#include <pybind11/pybind11.h>

#include "mcpcxx/http.hpp"
#include "mcpcxx/server.hpp"

namespace mcpcxx::py_bind {

namespace py = pybind11;

/// Registers SchemaError, compose_tool_error_message, is_reserved_code and the error names.
void bind_errors(py::module_& m);
/// Registers RequestContext.
void bind_context(py::module_& m);
/// Registers Server (its registration methods) and Session.
void bind_server(py::module_& m);
/// Adds Server.add_middleware and ReplyView (bind_middleware.cpp); after bind_server.
void bind_middleware(py::module_& m);
/// Binds _core.ToolCompletion (bind_async_tool.cpp).
void bind_async_tool(py::module_& m);
/// Registers serve_stdio, serve_http, HttpEndpoint and HttpExchange.
void bind_transports(py::module_& m);
/// Sets options.auth from an mcpcxx.auth hook object (None: no auth): its verify(token,
/// http_method, mcp_method, mcp_name) -> verdict tuple, resource, resource_metadata_url,
/// authorization_servers, scopes_supported. The verifier runs on I/O threads with the GIL.
void attach_auth(http_options& options, const py::object& auth);
/// UriTemplate: RFC 6570 parsing, matching and expansion (mcpcxx/uri_template.hpp).
void bind_uri_template(py::module_& m);
/// MCP Apps: add_ui_resource, link_ui_tool, apps_mime_types and the constants (bind_apps.cpp).
void bind_apps(py::module_& m);

/// Owns the engine; destroys it without the GIL so worker threads finishing a Python call can
/// still take the GIL while the pool joins.
struct server_handle {
  std::unique_ptr<server> srv;
  server_handle() = default;
  server_handle(const server_handle&) = delete;
  server_handle& operator=(const server_handle&) = delete;
  ~server_handle();
};

/// True while the interpreter can still run Python code: not finalizing, and interpreter exit
/// has not closed Python to engine threads (close_python_entries).
bool python_alive() noexcept;

/// Counts an engine thread's use of Python so interpreter exit can wait for it to leave: create
/// one before taking the GIL and keep it until the GIL is released. entered() is false (nothing
/// counted) once exit closed Python to engine threads; the thread must not touch Python then.
/// Thread-safety: any thread; nesting on one thread is fine.
class python_entry {
 public:
  python_entry() noexcept;
  ~python_entry();
  python_entry(const python_entry&) = delete;
  python_entry& operator=(const python_entry&) = delete;
  /// Whether this thread may take the GIL.
  bool entered() const noexcept { return entered_; }

 private:
  bool entered_ = false;
};

/// Interpreter exit (Python atexit, before finalization; called without the GIL): refuses new
/// entries, makes RequestContext.cancelled true, and waits up to `timeout` for the engine threads
/// inside Python to leave. Returns how many are still inside (handlers ignoring cancellation):
/// finalizing then would end those threads mid-call (Python 3.11 pthread_exit()s a thread that
/// takes the GIL during finalization), so the caller must exit without finalizing.
std::size_t close_python_entries(std::chrono::milliseconds timeout);
/// True once close_python_entries() ran.
bool python_closing() noexcept;

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
