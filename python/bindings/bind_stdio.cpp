// Blocking stdio serving, always with the GIL released.
#include "mcpcxx/stdio.hpp"

#include "bindings.hpp"

namespace mcpcxx::py_bind {

server_handle::~server_handle() {
  if (PyGILState_Check() != 0) {
    py::gil_scoped_release release;
    srv.reset();
  } else {
    srv.reset();
  }
}

namespace {

stdio_options stdio_options_from(bool protect_stdout, double drain_grace_seconds) {
  stdio_options o;
  o.protect_stdout = protect_stdout;
  o.drain_grace = std::chrono::milliseconds(static_cast<long long>(drain_grace_seconds * 1000));
  return o;
}

}  // namespace

void bind_stdio(py::module_& m) {
  m.def(
      "serve_stdio",
      [](server_handle& h, bool protect_stdout, double drain_grace_seconds) {
        return serve_stdio(*h.srv, stdio_options_from(protect_stdout, drain_grace_seconds));
      },
      py::arg("server"), py::arg("protect_stdout") = true, py::arg("drain_grace_seconds") = 5.0,
      py::call_guard<py::gil_scoped_release>(),
      "Serve stdin/stdout until EOF; returns 0 on a clean end.");
  m.def(
      "serve_fds",
      [](server_handle& h, int in_fd, int out_fd, bool protect_stdout, double drain_grace_seconds) {
        return serve_fds(*h.srv, in_fd, out_fd,
                         stdio_options_from(protect_stdout, drain_grace_seconds));
      },
      py::arg("server"), py::arg("in_fd"), py::arg("out_fd"), py::arg("protect_stdout") = false,
      py::arg("drain_grace_seconds") = 5.0, py::call_guard<py::gil_scoped_release>(),
      "Serve newline-delimited JSON-RPC on the given descriptors until EOF.");
}

}  // namespace mcpcxx::py_bind
