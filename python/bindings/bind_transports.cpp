// Serving from Python: stdio and Streamable HTTP (blocking, GIL released), and HttpEndpoint, the
// engine's HTTP endpoint driven by an ASGI server (mcpcxx.asgi). The protocol logic stays in C++.
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/stl.h>

#include "mcpcxx/http.hpp"
#include "mcpcxx/stdio.hpp"

#include "bindings.hpp"
#include "json_caster.hpp"

namespace mcpcxx::py_bind {

namespace {

using header_pairs = std::vector<std::pair<std::string, std::string>>;

/// Calls on_start(status, headers), on_data(bytes), on_end() with the GIL, from any thread.
class python_response_sink final : public http_response_sink {
 public:
  python_response_sink(py::object on_start, py::object on_data, py::object on_end)
      : on_start_(std::move(on_start)), on_data_(std::move(on_data)), on_end_(std::move(on_end)) {}

  void start(int status, header_pairs headers) override {
    call([&] { on_start_.get()(status, headers); });
  }
  void write(std::string data) override {
    call([&] { on_data_.get()(py::bytes(data)); });
  }
  void end() override {
    call([&] { on_end_.get()(); });
  }

 private:
  held_object on_start_, on_data_, on_end_;

  template <class F>
  void call(F&& f) {
    const python_entry entry;
    if (!entry.entered()) return;
    py::gil_scoped_acquire gil;
    try {
      f();
    } catch (py::error_already_set& e) {
      e.discard_as_unraisable("mcpcxx HTTP response sink");
    }
  }
};

// Destroys an endpoint without the GIL: its destructor closes it, cutting off exchanges whose
// reply a worker may be delivering at that moment through a Python callback, which needs the
// GIL (holding it here deadlocked a garbage-collected endpoint against that worker).
struct release_gil_delete {
  void operator()(http_endpoint* ep) const {
    const py::gil_scoped_release release;
    delete ep;
  }
};
using endpoint_holder = std::unique_ptr<http_endpoint, release_gil_delete>;

std::shared_ptr<http_exchange> handle(http_endpoint& ep, std::string method, std::string target,
                                      header_pairs headers, const py::bytes& body,
                                      py::object on_start, py::object on_data, py::object on_end) {
  http_request_data d{std::move(method), std::move(target), std::move(headers), std::string(body)};
  auto sink = std::make_shared<python_response_sink>(std::move(on_start), std::move(on_data),
                                                     std::move(on_end));
  py::gil_scoped_release release;
  return ep.handle(std::move(d), std::move(sink));
}

}  // namespace

void bind_transports(py::module_& m) {
  using release = py::call_guard<py::gil_scoped_release>;
  m.def(
      "serve_stdio",
      [](server_handle& h, const stdio_options& o) { return serve_stdio(*h.srv, o); },
      py::arg("server"), py::arg("options"), release(),
      "Serve stdin/stdout until EOF; returns 0 on a clean end.");
  m.def(
      "serve_http",
      [](server_handle& h, http_options o, const py::object& auth) {
        attach_auth(o, auth);
        py::gil_scoped_release unlocked;
        return serve_http(*h.srv, o);
      },
      py::arg("server"), py::arg("options"), py::arg("auth") = py::none(),
      "Serve Streamable HTTP until SIGINT/SIGTERM; returns 0 after a graceful stop. `auth`: an "
      "mcpcxx.auth hook (bearer tokens) or None.");
  m.def(
      "close_python_entries",
      [](double timeout) {
        return close_python_entries(std::chrono::milliseconds(std::llround(timeout * 1000)));
      },
      py::arg("timeout_seconds"), release(),
      "Interpreter exit: stop engine threads entering Python, report cancellation to running "
      "handlers, wait up to timeout_seconds for them; returns how many still run.");
  py::class_<http_exchange, std::shared_ptr<http_exchange>>(m, "HttpExchange")
      .def("disconnected", &http_exchange::disconnected, release(),
           "Tell the engine the client went away (cancels a 2026-07-28 request).");
  py::class_<http_endpoint, endpoint_holder>(m, "HttpEndpoint",
                                             "The MCP HTTP endpoint without sockets.")
      .def(py::init([](server_handle& h, http_options o, const py::object& auth) {
             attach_auth(o, auth);
             return endpoint_holder(new http_endpoint(*h.srv, o));
           }),
           py::arg("server"), py::arg("options"), py::arg("auth") = py::none(),
           py::keep_alive<1, 2>(), py::keep_alive<1, 4>())
      .def("handle", &handle, py::arg("method"), py::arg("target"), py::arg("headers"),
           py::arg("body"), py::arg("on_start"), py::arg("on_data"), py::arg("on_end"),
           "Handle one request; the callbacks run on engine threads with the GIL held.")
      .def(
          "close",
          [](http_endpoint& ep, double grace) {
            ep.close(std::chrono::milliseconds(std::llround(grace * 1000)));
          },
          py::arg("grace_seconds") = 5.0, release(),
          "Refuse new requests, wait for in-flight ones, end all sessions.")
      .def("stats", &http_endpoint::stats, release(), "The endpoint's counters.");
}

}  // namespace mcpcxx::py_bind
